# Installing memctl on a host, and the Debian package (CPack), included
# from the top-level CMakeLists.txt after the binary, manual pages and
# profiles are installed there.
#
#   /usr/sbin/memctl, /usr/share/man/man{5,8}, /usr/share/memctl/profiles
#   /etc/memctl/profile.yaml                  the service's profile (conffile)
#   /lib/systemd/system/memctl{,@,-record}.service  the units (prefix /usr; else PREFIX/lib/...)
#   /usr/share/doc/memctl/                    README, FLEET.md, fleet examples
#
# scripts/setup.sh release configures with prefix /usr; `cpack` in that
# build directory writes memctl_VERSION_ARCH.deb (tests/dist/deb-install.sh).

# Debian 12 keeps units in /lib/systemd/system; any other prefix keeps them below itself.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_unitdir_default /lib/systemd/system)
else()
  set(_unitdir_default ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
endif()
set(MEMCTL_SYSTEMD_UNITDIR ${_unitdir_default} CACHE PATH "Where the systemd units are installed")
# Completion scripts go here (bash-completion's and zsh's lookup directories).
set(MEMCTL_BASH_COMPLETIONDIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
    CACHE PATH "Where the bash completion is installed")
set(MEMCTL_ZSH_COMPLETIONDIR ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
    CACHE PATH "Where the zsh completion is installed")

# The units name the installed binary and configuration directory.
set(MEMCTL_SBIN_DIR ${CMAKE_INSTALL_FULL_SBINDIR})
set(MEMCTL_ETC_DIR ${CMAKE_INSTALL_FULL_SYSCONFDIR}/memctl)
file(READ ${CMAKE_CURRENT_LIST_DIR}/unit-common.in MEMCTL_UNIT_COMMON)
foreach(unit memctl.service memctl@.service memctl-record.service)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${unit}.in ${PROJECT_BINARY_DIR}/dist/${unit} @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/dist/${unit} DESTINATION ${MEMCTL_SYSTEMD_UNITDIR})
endforeach()

install(FILES ${CMAKE_CURRENT_LIST_DIR}/profile.yaml DESTINATION ${MEMCTL_ETC_DIR})
install(FILES README.md docs/FLEET.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/fleet DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# Manual pages are kept compressed in /usr/share/man (Debian policy 12.1),
# here after the top-level file installed them; -n keeps the output reproducible.
install(CODE "
  foreach(page man8/memctl.8 man5/memctl-profile.5)
    set(f \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_MANDIR}/\${page}\")
    execute_process(COMMAND gzip -9nf \${f} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR \"cannot compress \${f}\")
    endif()
  endforeach()")

# The Debian package. Dependencies come from dpkg-shlibdeps (dpkg-dev) on
# the installed binary: libcgroup2, libyaml-0-2, libreadline8, libncursesw6...
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME memctl)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "administer Linux memory cgroups from a policy profile")
set(CPACK_PACKAGE_DESCRIPTION
  "memctl reads a YAML profile of memory limits, soft limits, protection and\n"
  "swap per cgroup, plans the writes that take the live tree there and applies\n"
  "them as one transaction, rolled back on failure. memctl run keeps the\n"
  "profile and five reclaim policies right every interval, as a systemd\n"
  "service with a delegated subtree. It works on cgroup v1, v2 and hybrid hosts.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(MEMCTL_MAINTAINER "memctl maintainers <maintainers@users.noreply.a-seed-d516ef81.example>"
    CACHE STRING "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT ${MEMCTL_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${MEMCTL_MAINTAINER})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
# Files below /etc are the administrator's once installed: dpkg keeps their changes.
file(WRITE ${PROJECT_BINARY_DIR}/dist/conffiles "${MEMCTL_ETC_DIR}/profile.yaml\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/dist/conffiles)
include(CPack)
