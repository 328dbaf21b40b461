# waitscope-replay under mpirun on the threaded trace (threads_check.cpp): per-thread times in
# the report, the main locations' values unchanged, and an unreadable thread left out with a
# warning naming its file and location.
# Variables: REPLAY, MPIRUN, CHECK (waitscope_threads_check), WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output
                  TIMEOUT 120)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${ARGN} failed (${status}): ${output}${errors}")
  endif()
  set(errors "${errors}" PARENT_SCOPE)
endfunction()

run("${CHECK}" write "${WORK}/threaded/trace")
run("${CHECK}" write "${WORK}/plain/trace" plain)
run("${MPIRUN}" -np 2 --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}/threaded" "${WORK}/threaded/trace")
run("${MPIRUN}" -np 2 --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}/plain" "${WORK}/plain/trace")
run("${CHECK}" check "${WORK}/threaded/report.cubex" "${WORK}/plain/report.cubex")

# The in-process analysis gives the same report.
run("${REPLAY}" --serial --quiet --output-dir "${WORK}/serial" "${WORK}/threaded/trace")
file(SHA256 "${WORK}/threaded/report.cubex" mpiCube)
file(SHA256 "${WORK}/serial/report.cubex" serialCube)
if(NOT mpiCube STREQUAL serialCube)
  message(FATAL_ERROR "mpi and in-process report.cubex of the threaded trace differ")
endif()

# Rank 1's thread has lost its event file: the rest is analyzed, with a warning.
file(COPY "${WORK}/threaded/trace/" DESTINATION "${WORK}/missing/trace")
file(REMOVE "${WORK}/missing/trace/traces/4294967297.evt")
run("${MPIRUN}" -np 2 --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}/missing" "${WORK}/missing/trace")
if(NOT errors MATCHES "warning: [^\n]*traces.otf2: rank 1: location 4294967297 \\(thread 1\\): event file [^\n]*4294967297.evt is missing")
  message(FATAL_ERROR "no warning naming the unreadable thread: ${errors}")
endif()
run("${CHECK}" check-missing "${WORK}/missing/report.cubex")
