# Guest tests: boot the memctl test host (kernel/build.sh, kernel/run-guest.sh)
# under QEMU and run tests/guest/NN-*.sh inside it.  Included from
# tests/CMakeLists.txt; run with `ctest -L guest`.  The first run builds the
# patched and the baseline kernel (about 20 minutes each on 2 cores beside
# the other tests; see kernel/README.md), later runs reuse the cache.  Exit
# 77 = skipped (tools or packages missing and not installable).
set(MEMCTL_GUEST_DIR ${CMAKE_CURRENT_LIST_DIR})

# name, script, mode (patched / baseline / ab)
set(MEMCTL_GUEST_TESTS
  "knobs:10-knobs.sh:patched"
  "knobs-baseline:10-knobs.sh:baseline"
  "reclaim-nodes:20-reclaim-nodes.sh:ab"
  "reclaim-demotion:21-reclaim-demotion.sh:ab"
  "thp-fallback:30-thp-fallback.sh:ab"
  "soft-limit:40-soft-limit.sh:ab"
  "reclaimer-cap:50-reclaimer-cap.sh:ab"
  "reclaimer-cap-memsw:51-reclaimer-cap-memsw.sh:ab"
  "protect-active:60-protect-active.sh:ab"
  "selftests:70-selftests.sh:ab"
  "memctl-status:80-memctl-status.sh:patched"
  "systemd-delegation:85-systemd-delegation.sh:patched"
  "memctl-knobs:86-memctl-knobs.sh:patched"
  "memctl-knobs-baseline:86-memctl-knobs.sh:baseline"
  # memctl's own integration tests (tests/integration) on the guest's cgroup v2
  "integration:90-integration.sh:patched")

foreach(entry ${MEMCTL_GUEST_TESTS})
  string(REPLACE ":" ";" parts ${entry})
  list(GET parts 0 name)
  list(GET parts 1 script)
  list(GET parts 2 mode)
  if(mode STREQUAL "patched")
    set(args ${script})
  else()
    set(args --${mode} ${script})
  endif()
  add_test(NAME guest/${name}
    COMMAND bash ${MEMCTL_GUEST_DIR}/run.sh ${args})
  # memctl's integration tests run one after another in one guest, up to
  # 90 s each; the reclaimer-cap storms and the protect-active scenarios
  # took 763 s and 587 s per guest at a load average of 12-25
  # (kernel/README.md); every other guest gets 300 s.  An A/B test boots
  # two guests.
  if(name STREQUAL "integration")
    set(guest_timeout 1500)
  elseif(name STREQUAL "reclaimer-cap" OR name STREQUAL "protect-active")
    set(guest_timeout 1200)
  else()
    set(guest_timeout 300)
  endif()
  math(EXPR ctest_timeout "2 * ${guest_timeout} + 300")
  # Label baseline-kernel: the test boots the unpatched kernel too, so a
  # fresh machine's run (scripts/test.sh) takes it after the tests that
  # need only the patched kernel, which run while the baseline builds.
  set(labels guest)
  if(NOT mode STREQUAL "patched")
    list(APPEND labels baseline-kernel)
  endif()
  set_tests_properties(guest/${name} PROPERTIES
    LABELS "${labels}"
    SKIP_RETURN_CODE 77
    TIMEOUT ${ctest_timeout}
    RESOURCE_LOCK memctl-guest
    ENVIRONMENT "MEMCTL=$<TARGET_FILE:memctl>;MEMCTL_GUEST_TIMEOUT=${guest_timeout}")
endforeach()

# The guest benchmarks (bench/guest.sh) in quick mode: proves they still
# boot and run on both kernels; no timing is asserted (docs/BENCHMARKS-guest.md).
add_test(NAME bench-guest/quick
  COMMAND bash ${MEMCTL_GUEST_DIR}/../../bench/guest.sh --quick
          --out ${CMAKE_BINARY_DIR}/bench-guest-quick)
# Its own lock: scripts/test.sh runs it beside the other baseline-kernel
# tests (ctest -j2), which it cannot fail by slowing, as it times nothing.
set_tests_properties(bench-guest/quick PROPERTIES
  LABELS "bench-guest;baseline-kernel"
  SKIP_RETURN_CODE 77
  TIMEOUT 1800
  RESOURCE_LOCK memctl-guest-side
  ENVIRONMENT "MEMCTL=$<TARGET_FILE:memctl>;MEMCTL_GUEST_TIMEOUT=300")

# The systemd guest: a Debian root file system with systemd as PID 1.
include(${CMAKE_CURRENT_LIST_DIR}/systemd/systemd.cmake)

# Order only (DEPENDS does not require a pass): the integration suite,
# the longest and most timing-sensitive guest test that needs only the
# patched kernel, runs after the systemd guest and the demo, so that on a
# fresh machine the baseline kernel's build (scripts/test.sh) is over or
# nearly so by the time it starts.
set_tests_properties(guest/integration PROPERTIES
  DEPENDS "guest/systemd;bench-guest/systemd-demo")
