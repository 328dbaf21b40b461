# waitscope-replay --memory-limit: a budget too small for the ranks a process replays, even read
# in windows, is refused before any event is read, on every process alike (serial, M:N and N:N, never hanging), naming
# the rank and the sizes; a budget that holds them changes nothing in the outputs; waitscope
# analyze passes the option on.
# Variables: REPLAY, ANALYZE, MPIRUN, TRACE (a 4-rank reference trace directory), WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# 1. Too small: serially (all four ranks in one process), with two processes and with four.
execute_process(COMMAND "${REPLAY}" --serial --quiet --memory-limit 1K --output-dir "${WORK}/refused" "${TRACE}"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 180)
if(NOT status EQUAL 1 OR NOT errors MATCHES "waitscope-replay: error: [^\n]*traces.otf2: rank [0-3]: read in windows, its [0-9]+ events still need about [0-9.]+ KiB \\(41 bytes per event: the root-cause passes hold a rank's communication operations whole\\), the 4 ranks 0-3 together [0-9.]+ KiB with their windows, and the process itself 32.0 MiB: [0-9.]+ MiB in all, but --memory-limit allows 1.0 KiB per analysis process")
  message(FATAL_ERROR "serial run over the budget not refused (${status}): ${errors}")
endif()
if(EXISTS "${WORK}/refused/report.cubex")
  message(FATAL_ERROR "a refused analysis wrote a report")
endif()
foreach(processes 2 4)
  execute_process(COMMAND "${MPIRUN}" -np ${processes} --oversubscribe "${REPLAY}" --quiet --memory-limit 1K --output-dir "${WORK}/refused" "${TRACE}"
                  RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 180)
  if(processes EQUAL 2)
    set(expected "rank [01]: read in windows, its [0-9]+ events still need about [0-9.]+ KiB [^\n]*, the 2 ranks 0-1 of analysis process 0 together")
  else()
    set(expected "rank 0: read in windows, its [0-9]+ events still need about [0-9.]+ KiB [^\n]*, and the process itself 32.0 MiB")
  endif()
  # Every process says it: they refuse alike, none waits for another.
  string(REGEX MATCHALL "but --memory-limit allows 1.0 KiB per analysis process" said "${errors}")
  list(LENGTH said count)
  if(status EQUAL 0 OR NOT errors MATCHES "${expected}" OR NOT count EQUAL processes)
    message(FATAL_ERROR "${processes} processes over the budget not refused alike (${status}, ${count}): ${errors}")
  endif()
endforeach()

# 2. A size that is not one.
execute_process(COMMAND "${REPLAY}" --serial --memory-limit 12x "${TRACE}"
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 180)
if(NOT status EQUAL 2 OR NOT errors MATCHES "waitscope replay: error: --memory-limit: '12x' is not a memory size \\(unknown unit 'x'; use K, M, G or T\\)")
  message(FATAL_ERROR "bad --memory-limit not refused (${status}): ${errors}")
endif()

# 3. Budgets that hold the ranks (the default, a generous one, none) write the same files.
set(files report.cubex trace.stat instances.txt instances.bin critical_path.txt dump.txt)
foreach(run default:4:- none:2:none serial:1:2G)
  string(REPLACE ":" ";" parts "${run}")
  list(GET parts 0 name)
  list(GET parts 1 processes)
  list(GET parts 2 limit)
  set(limitArgs)
  if(NOT limit STREQUAL "-")
    set(limitArgs --memory-limit ${limit})
  endif()
  if(name STREQUAL "serial")
    set(command "${REPLAY}" --serial)
  else()
    set(command "${MPIRUN}" -np ${processes} --oversubscribe "${REPLAY}")
  endif()
  execute_process(COMMAND ${command} --quiet ${limitArgs} --output-dir "${WORK}/${name}"
                          --dump-text "${WORK}/${name}/dump.txt" "${TRACE}"
                  RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 180)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "analysis ${name} failed (${status}): ${errors}")
  endif()
  if(NOT name STREQUAL "default")
    foreach(file ${files})
      execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/default/${file}" "${WORK}/${name}/${file}"
                      RESULT_VARIABLE differ)
      if(NOT differ EQUAL 0)
        message(FATAL_ERROR "${file} differs between the default budget and ${name}")
      endif()
    endforeach()
  endif()
endforeach()

# 4. waitscope analyze passes the budget on to waitscope-replay.
execute_process(COMMAND "${ANALYZE}" -n --memory-limit 1536M -a "${TRACE}" mpirun -np 2
                RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_VARIABLE output TIMEOUT 180)
if(NOT status EQUAL 0 OR NOT output MATCHES "analyze: +mpirun -np 2 [^\n]*waitscope-replay --memory-limit 1536M ")
  message(FATAL_ERROR "waitscope analyze did not pass --memory-limit on (${status}): ${output}${errors}")
endif()
