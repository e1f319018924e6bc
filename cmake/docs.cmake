# Manual pages (man/), installed with the program. Their tests are
# tests/cli/man_options.sh (the pages against the help texts) and
# man_lint.sh (mandoc and groff warnings).
include(GNUInstallDirs)

install(FILES man/convoy.1 man/convoy-filter.1 man/convoy-design.1 man/convoy-live.1
              man/convoy-bench.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES man/libconvoy.3 DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
