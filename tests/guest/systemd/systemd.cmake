# The systemd guest (tests/guest/systemd/README.md): one boot per kernel
# runs every test of tests/guest/systemd in order.  Included from
# tests/guest/guest.cmake; label guest.  The first run also builds the root
# file system (kernel/rootfs.sh, cached in /var/cache/memctl-rootfs).
set(MEMCTL_SYSTEMD_GUEST_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(kind patched baseline)
  if(kind STREQUAL "patched")
    set(name guest/systemd)
    set(kopt "")
    set(labels guest)
  else()
    set(name guest/systemd-baseline)
    set(kopt --baseline)
    set(labels "guest;baseline-kernel")
  endif()
  # The baseline's boot takes turns with bench-guest/quick only: in
  # scripts/test.sh's last stage (ctest -j2) it runs beside the other
  # baseline-kernel tests, as the patched one runs beside a kernel build.
  set(lock memctl-guest)
  if(kind STREQUAL "baseline")
    set(lock memctl-guest-side)
  endif()
  add_test(NAME ${name}
    COMMAND bash ${MEMCTL_SYSTEMD_GUEST_DIR}/host.sh ${kopt}
            --out ${CMAKE_BINARY_DIR}/guest-systemd-${kind} all)
  set_tests_properties(${name} PROPERTIES
    LABELS "${labels}"
    SKIP_RETURN_CODE 77
    TIMEOUT 2400
    RESOURCE_LOCK ${lock}
    ENVIRONMENT "MEMCTL=$<TARGET_FILE:memctl>;MEMCTL_GUEST_TIMEOUT=1800")
endforeach()

# The demo (bench/guest/systemd-demo.sh) in quick mode, patched kernel: one
# round of small sizes proves every arm runs (memctl.service on a profile
# naming the two units among them); no number is judged.
add_test(NAME bench-guest/systemd-demo
  COMMAND bash ${MEMCTL_SYSTEMD_GUEST_DIR}/host.sh
          --out ${CMAKE_BINARY_DIR}/bench-guest-systemd-demo bench/systemd-demo.sh quick)
set_tests_properties(bench-guest/systemd-demo PROPERTIES
  LABELS bench-guest
  SKIP_RETURN_CODE 77
  TIMEOUT 1800
  RESOURCE_LOCK memctl-guest
  ENVIRONMENT "MEMCTL=$<TARGET_FILE:memctl>;MEMCTL_GUEST_TIMEOUT=1200")
