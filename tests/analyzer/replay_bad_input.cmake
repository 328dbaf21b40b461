# waitscope-replay on bad input under mpirun: fails (never hangs) with a message naming the problem.
# Variables: REPLAY, MPIRUN, REFERENCE (a reference trace directory), WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# 1. The job has more ranks than the trace (fewer are fine: M:N replay).
execute_process(COMMAND "${MPIRUN}" -np 5 --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}" "${REFERENCE}"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(status EQUAL 0 OR NOT errors MATCHES "the trace has 4 ranks but the analysis runs with 5 ranks \\(use mpirun -np 4 or fewer\\)")
  message(FATAL_ERROR "rank count mismatch not refused (${status}): ${errors}")
endif()

# 2. A missing event file.
file(COPY "${REFERENCE}/" DESTINATION "${WORK}/trace")
file(REMOVE "${WORK}/trace/traces/2.evt")
execute_process(COMMAND "${MPIRUN}" -np 4 --oversubscribe "${REPLAY}" --quiet "${WORK}/trace"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(status EQUAL 0 OR NOT errors MATCHES "rank 2: event file [^\n]*2.evt is missing")
  message(FATAL_ERROR "missing event file not refused (${status}): ${errors}")
endif()
# ... and with two processes replaying two ranks each (M:N): refused, not hanging.
execute_process(COMMAND "${MPIRUN}" -np 2 --oversubscribe "${REPLAY}" --quiet "${WORK}/trace"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(status EQUAL 0 OR NOT errors MATCHES "rank 2: event file [^\n]*2.evt is missing")
  message(FATAL_ERROR "missing event file not refused with 2 processes (${status}): ${errors}")
endif()

# 2b. The same with --time-correct: the correction stands aside and the replay refuses alike.
execute_process(COMMAND "${MPIRUN}" -np 4 --oversubscribe "${REPLAY}" --quiet --time-correct "${WORK}/trace"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(status EQUAL 0 OR NOT errors MATCHES "rank 2: event file [^\n]*2.evt is missing")
  message(FATAL_ERROR "missing event file not refused with --time-correct (${status}): ${errors}")
endif()

# 2c. A minimum latency that is not a time.
execute_process(COMMAND "${REPLAY}" --serial --min-latency soon "${REFERENCE}"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(NOT status EQUAL 2 OR NOT errors MATCHES "waitscope replay: error: --min-latency 'soon': expected a time in seconds of 0 or more")
  message(FATAL_ERROR "bad --min-latency not refused (${status}): ${errors}")
endif()

# 2d. An output directory that cannot be made (a file stands in its way): refused before the
# analysis; one that does not exist yet is made, and the report lands in it.
file(WRITE "${WORK}/not_a_directory" "")
execute_process(COMMAND "${REPLAY}" --serial --quiet --output-dir "${WORK}/not_a_directory/out" "${REFERENCE}"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(status EQUAL 0 OR NOT errors MATCHES "error: [^\n]*not_a_directory/out: cannot create the output directory")
  message(FATAL_ERROR "impossible output directory not refused (${status}): ${errors}")
endif()
execute_process(COMMAND "${REPLAY}" --serial --quiet --output-dir "${WORK}/new/reports" "${REFERENCE}"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(NOT status EQUAL 0 OR NOT EXISTS "${WORK}/new/reports/report.cubex")
  message(FATAL_ERROR "missing output directory not made (${status}): ${errors}")
endif()
# 2c. The same read in windows (--no-root-cause: the windowed replay; with the root-cause
# passes: the windowed profile): every rank stops together.
foreach(processes 4 2 root-cause)
  set(basic --no-root-cause)
  if(processes STREQUAL "root-cause")
    set(processes 4)
    set(basic)
  endif()
  execute_process(COMMAND "${MPIRUN}" -np ${processes} --oversubscribe "${REPLAY}" --quiet ${basic}
                          --window-events 3 "${WORK}/trace"
                  RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
  if(status EQUAL 0 OR NOT errors MATCHES "rank 2: event file [^\n]*2.evt is missing")
    message(FATAL_ERROR "missing event file not refused in windows with ${processes} processes (${status}): ${errors}")
  endif()
endforeach()

# 3. A truncated event file.
file(COPY "${REFERENCE}/traces/2.evt" DESTINATION "${WORK}/trace/traces")
file(READ "${WORK}/trace/traces/3.evt" bytes HEX)
string(LENGTH "${bytes}" length)
math(EXPR half "${length} / 4 * 2")
string(SUBSTRING "${bytes}" 0 ${half} bytes)
file(REMOVE "${WORK}/trace/traces/3.evt")
# Write the first half back as binary through a hex -> bytes conversion.
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${bytes}")
execute_process(COMMAND printf "${escaped}" OUTPUT_FILE "${WORK}/trace/traces/3.evt")
execute_process(COMMAND "${MPIRUN}" -np 4 --oversubscribe "${REPLAY}" --quiet "${WORK}/trace"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
if(status EQUAL 0 OR NOT errors MATCHES "rank 3: [^\n]*trunc")
  message(FATAL_ERROR "truncated event file not refused (${status}): ${errors}")
endif()
# ... and read in windows: found in the middle of the pass, refused on every rank together (with
# and without the root-cause passes).
foreach(run 4:--no-root-cause 4:-)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 processes)
  list(GET run 1 basic)
  if(basic STREQUAL "-")
    set(basic)
  endif()
  execute_process(COMMAND "${MPIRUN}" -np ${processes} --oversubscribe "${REPLAY}" --quiet ${basic}
                          --window-events 3 "${WORK}/trace"
                  RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
  if(status EQUAL 0 OR NOT errors MATCHES "rank 3: [^\n]*trunc")
    message(FATAL_ERROR "truncated event file not refused in windows (${processes} ${basic}: ${status}): ${errors}")
  endif()
endforeach()
# ... and with two processes replaying two ranks each (M:N), whole and in windows: every process
# prints the read error naming the file and rank 3, never another rank's refusal that follows
# from it ("rank 3: no events to replay", "rank 2: analysis stopped because ..."), whichever of
# the co-located ranks' threads fails first (repeated: which one does is a race).
foreach(run whole:- whole:- whole:- windows:--no-root-cause windows:- windows:-)
  string(REPLACE ":" ";" run "${run}")
  list(GET run 0 reading)
  list(GET run 1 basic)
  set(flags)
  if(reading STREQUAL "windows")
    set(flags --window-events 3)
  endif()
  if(NOT basic STREQUAL "-")
    list(APPEND flags ${basic})
  endif()
  execute_process(COMMAND "${MPIRUN}" -np 2 --oversubscribe "${REPLAY}" --quiet ${flags} "${WORK}/trace"
                  RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 60)
  string(REGEX MATCHALL "waitscope-replay: error: [^\n]*" printed "${errors}")
  list(LENGTH printed count)
  string(REGEX MATCHALL "waitscope-replay: error: [^\n]*traces.otf2: rank 3: event file truncated[^\n]*"
         named "${errors}")
  list(LENGTH named named_count)
  if(status EQUAL 0 OR NOT count EQUAL 2 OR NOT named_count EQUAL 2)
    message(FATAL_ERROR "truncated event file with 2 processes (${flags}): not the read error from both (${status}): ${errors}")
  endif()
endforeach()
