# The Python package convoy (python/convoy): pure Python over libconvoy.so
# through cffi's ABI mode, so nothing is compiled for it. CONVOY_PYTHON=AUTO
# installs it when a python3 with numpy and cffi is found, ON requires one,
# OFF leaves it out. The same interpreter runs its tests (tests/python/).
#
# The interpreter: Python3_EXECUTABLE when given, else the first of python3
# on PATH and /usr/bin/python3 that imports numpy and cffi (a python3 of a
# version manager may lack the distribution's numpy; Debian's has it through
# python3-numpy and python3-cffi).
#
# The folder: CONVOY_PYTHON_DIR (relative to the prefix, or absolute), else
# the interpreter's site folder under the prefix: Debian's python3 looks in
# /usr/lib/python3/dist-packages for the prefix /usr and in
# PREFIX/lib/python3.X/dist-packages for /usr/local, other interpreters in
# PREFIX/lib/python3.X/site-packages (sysconfig's purelib). LIBDIR/python3 is
# not one of them: for /usr, GNUInstallDirs makes LIBDIR lib/<multiarch>.
# Another prefix needs PYTHONPATH. Beside the package, install writes
# convoy/_install.py with the path from it to libconvoy.so, relative, so the
# package loads the library installed with it wherever the prefix is.
set(CONVOY_PYTHON "AUTO" CACHE STRING
    "Install the Python package convoy (python3 with numpy and cffi): AUTO, ON or OFF")
set(CONVOY_PYTHON_DIR "" CACHE STRING
    "Folder for the Python package, relative to the prefix or absolute (default: python3's site folder under the prefix)")

set(CONVOY_PYTHON_EXECUTABLE "")
if(Python3_EXECUTABLE)
  set(convoy_candidates ${Python3_EXECUTABLE})
else()
  find_program(convoy_python_on_path NAMES python3 NO_CACHE)
  set(convoy_candidates ${convoy_python_on_path} /usr/bin/python3)
  list(REMOVE_DUPLICATES convoy_candidates)
endif()
foreach(py IN LISTS convoy_candidates)
  if(NOT EXISTS "${py}")
    continue()
  endif()
  execute_process(COMMAND ${py} -c "import numpy, cffi, sys; print('%d.%d' % sys.version_info[:2])"
                  RESULT_VARIABLE convoy_rc OUTPUT_VARIABLE convoy_py_version
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(convoy_rc EQUAL 0)
    set(CONVOY_PYTHON_EXECUTABLE ${py})
    break()
  endif()
endforeach()

set(CONVOY_HAVE_PYTHON OFF)
if(NOT CONVOY_PYTHON STREQUAL "OFF")
  if(CONVOY_PYTHON_EXECUTABLE)
    set(CONVOY_HAVE_PYTHON ON)
  elseif(CONVOY_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "CONVOY_PYTHON=ON but no python3 that imports numpy and cffi was found "
                        "(tried: ${convoy_candidates}); set Python3_EXECUTABLE")
  endif()
endif()

if(CONVOY_HAVE_PYTHON)
  set(CONVOY_PYTHON_INSTALL_DIR "${CONVOY_PYTHON_DIR}")
  if(NOT CONVOY_PYTHON_INSTALL_DIR)
    execute_process(
      COMMAND ${CONVOY_PYTHON_EXECUTABLE} -c [=[
import sys, sysconfig
prefix = sys.argv[1].rstrip("/")
if "deb_system" in sysconfig.get_scheme_names():  # Debian's python3
    v = "%d.%d" % sys.version_info[:2]
    print("lib/python3/dist-packages" if prefix == "/usr" else "lib/python%s/dist-packages" % v)
else:
    print(sysconfig.get_path("purelib", "posix_prefix",
                             vars={"base": "/", "platbase": "/"}).lstrip("/"))
]=] ${CMAKE_INSTALL_PREFIX}
      OUTPUT_VARIABLE CONVOY_PYTHON_INSTALL_DIR OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE convoy_rc)
    if(NOT convoy_rc EQUAL 0 OR NOT CONVOY_PYTHON_INSTALL_DIR)
      message(FATAL_ERROR "${CONVOY_PYTHON_EXECUTABLE} could not name its site folder; "
                          "set CONVOY_PYTHON_DIR")
    endif()
  endif()
  install(DIRECTORY python/convoy/ DESTINATION ${CONVOY_PYTHON_INSTALL_DIR}/convoy
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
  # convoy/_install.py: the library's path relative to the package, computed
  # at install time, when the prefix (cmake --install --prefix) is known.
  set(convoy_install_py ${PROJECT_BINARY_DIR}/python/_install.py)
  install(CODE "
    set(convoy_libdir \"${CMAKE_INSTALL_LIBDIR}\")
    if(NOT IS_ABSOLUTE \"\${convoy_libdir}\")
      set(convoy_libdir \"\${CMAKE_INSTALL_PREFIX}/\${convoy_libdir}\")
    endif()
    set(convoy_pkg \"${CONVOY_PYTHON_INSTALL_DIR}/convoy\")
    if(NOT IS_ABSOLUTE \"\${convoy_pkg}\")
      set(convoy_pkg \"\${CMAKE_INSTALL_PREFIX}/\${convoy_pkg}\")
    endif()
    file(RELATIVE_PATH convoy_rel \"\${convoy_pkg}\"
         \"\${convoy_libdir}/$<TARGET_SONAME_FILE_NAME:convoy>\")
    file(WRITE \"${convoy_install_py}\"
         \"# Written by cmake --install: libconvoy.so relative to this folder.\\nLIBRARY = \\\"\${convoy_rel}\\\"\\n\")
    file(INSTALL DESTINATION \"\${convoy_pkg}\" TYPE FILE FILES \"${convoy_install_py}\")
  ")
  set(CONVOY_PYTHON_SUMMARY "yes (${CONVOY_PYTHON_EXECUTABLE}, Python ${convoy_py_version}; into ${CONVOY_PYTHON_INSTALL_DIR})")
elseif(CONVOY_PYTHON STREQUAL "OFF")
  set(CONVOY_PYTHON_SUMMARY "no (CONVOY_PYTHON=OFF)")
else()
  set(CONVOY_PYTHON_SUMMARY "no (no python3 with numpy and cffi found)")
endif()
add_feature_info(python CONVOY_HAVE_PYTHON
                 "the Python package convoy (python3 with numpy and cffi), installed with the library")
