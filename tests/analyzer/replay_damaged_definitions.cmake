# waitscope-replay on damaged per-rank definitions and on ranks that disagree about their
# collectives: refused within seconds with a message naming the rank and the file, never a
# hang and never a silent report. The program itself must detect it; the timeouts here only
# keep a regression from hanging the suite.
# Variables: REPLAY, MPIRUN, REFERENCE (a 4-rank reference trace directory), MISMATCH (a
# 4-rank trace whose rank 0 records its barriers as MPI_Alltoallv), MISPLACED (the same with
# them inside MPI_Barrier), WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run_replay)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status ERROR_VARIABLE errors
                  OUTPUT_VARIABLE output TIMEOUT 30)
  set(status "${status}" PARENT_SCOPE)
  set(errors "${errors}" PARENT_SCOPE)
endfunction()

# 1. traces/1.def truncated to half its size.
file(COPY "${REFERENCE}/" DESTINATION "${WORK}/truncated")
file(READ "${REFERENCE}/traces/1.def" bytes HEX)
string(LENGTH "${bytes}" length)
math(EXPR half "${length} / 4 * 2")
string(SUBSTRING "${bytes}" 0 ${half} bytes)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${bytes}")
file(REMOVE "${WORK}/truncated/traces/1.def")
execute_process(COMMAND printf "${escaped}" OUTPUT_FILE "${WORK}/truncated/traces/1.def")
run_replay("${MPIRUN}" -np 4 --oversubscribe "${REPLAY}" --quiet "${WORK}/truncated")
if(status EQUAL 0 OR NOT errors MATCHES "rank 1: local definitions [^\n]*traces/1.def are truncated or corrupt")
  message(FATAL_ERROR "truncated traces/1.def not refused under mpirun (${status}): ${errors}")
endif()
# The serial replay names the file and the cause too (not "rank 1: no events to replay").
run_replay("${REPLAY}" --serial --quiet "${WORK}/truncated")
if(status EQUAL 0 OR NOT errors MATCHES "error: [^\n]*rank 1: local definitions [^\n]*traces/1.def are truncated or corrupt")
  message(FATAL_ERROR "truncated traces/1.def not refused by --serial with its cause (${status}): ${errors}")
endif()

# 2. traces/1.def missing (the other ranks have theirs): rank 1's local ids would be taken
# for global ones.
file(COPY "${REFERENCE}/" DESTINATION "${WORK}/missing")
file(REMOVE "${WORK}/missing/traces/1.def")
run_replay("${MPIRUN}" -np 4 --oversubscribe "${REPLAY}" --quiet "${WORK}/missing")
if(status EQUAL 0 OR NOT errors MATCHES "rank 1: local definitions [^\n]*traces/1.def are missing")
  message(FATAL_ERROR "missing traces/1.def not refused under mpirun (${status}): ${errors}")
endif()
run_replay("${REPLAY}" --serial --quiet "${WORK}/missing")
if(status EQUAL 0 OR NOT errors MATCHES "rank 1: local definitions [^\n]*traces/1.def are missing")
  message(FATAL_ERROR "missing traces/1.def not refused by --serial (${status}): ${errors}")
endif()

# 3. Ranks that disagree about their collectives (rank 0's barriers are MPI_Alltoallv to it):
# the root-cause pass would wait for a share rank 0 never sends. Refused by the check before.
run_replay("${MPIRUN}" -np 4 --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}/out" "${MISMATCH}")
if(status EQUAL 0 OR NOT errors MATCHES "communicator 0: the collectives of rank 0 and rank 1 differ in operation, root or MPI call")
  message(FATAL_ERROR "disagreeing collectives not refused under mpirun (${status}): ${errors}")
endif()
run_replay("${MPIRUN}" -np 3 --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}/out" "${MISMATCH}")
if(status EQUAL 0 OR NOT errors MATCHES "communicator 0: the collectives of rank 0 and rank 1 differ in operation, root or MPI call")
  message(FATAL_ERROR "disagreeing collectives not refused by 3 processes (${status}): ${errors}")
endif()
run_replay("${REPLAY}" --serial --quiet --output-dir "${WORK}/out" "${MISMATCH}")
if(status EQUAL 0 OR NOT errors MATCHES "communicator 0: the collectives of rank 0 and rank 1 differ")
  message(FATAL_ERROR "disagreeing collectives not refused by --serial (${status}): ${errors}")
endif()

# 4. A collective operation inside an MPI call of another kind (an MPI_Alltoallv operation in
# MPI_Barrier, as a wrong region mapping shows it): refused when reading, naming rank and file.
run_replay("${MPIRUN}" -np 4 --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}/out" "${MISPLACED}")
if(status EQUAL 0 OR NOT errors MATCHES "rank 0: [0-9]+ communication events sit in MPI calls of another kind [^\n]*0.def")
  message(FATAL_ERROR "misplaced collectives not refused under mpirun (${status}): ${errors}")
endif()
