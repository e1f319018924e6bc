# Runs bin2c on IN, writing the C array NAME into OUT (cmake -P; bin2c prints
# to standard output, which add_custom_command cannot redirect portably).
execute_process(
  COMMAND ${BIN2C} --name ${NAME} --type longlong ${IN}
  OUTPUT_FILE ${OUT}
  RESULT_VARIABLE rv)
if(NOT rv EQUAL 0)
  file(REMOVE ${OUT})
  message(FATAL_ERROR "bin2c failed on ${IN}: ${rv}")
endif()
