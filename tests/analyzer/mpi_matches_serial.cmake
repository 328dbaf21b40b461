# Runs waitscope-replay under mpirun and with --serial on one trace; the value dumps, trace.stat
# and report.cubex of both must be identical.
# Variables: REPLAY, MPIRUN, TRACE, RANKS, WORK; optional OPTIONS (more replay options,
# comma-separated) and CORRECTED (the dump must show corrected timestamps and no violation left).
file(MAKE_DIRECTORY "${WORK}")
string(REPLACE "," ";" extra "${OPTIONS}")
execute_process(COMMAND "${MPIRUN}" -np ${RANKS} --oversubscribe "${REPLAY}" --quiet ${extra} --output-dir "${WORK}"
                        --dump-text "${WORK}/mpi.txt" "${TRACE}"
                RESULT_VARIABLE mpiStatus TIMEOUT 120)
if(NOT mpiStatus EQUAL 0)
  message(FATAL_ERROR "mpirun waitscope-replay failed: ${mpiStatus}")
endif()
file(RENAME "${WORK}/trace.stat" "${WORK}/mpi.stat")
file(RENAME "${WORK}/report.cubex" "${WORK}/mpi.cubex")
execute_process(COMMAND "${REPLAY}" --serial --quiet ${extra} --output-dir "${WORK}" --dump-text "${WORK}/serial.txt" "${TRACE}"
                RESULT_VARIABLE serialStatus TIMEOUT 120)
if(NOT serialStatus EQUAL 0)
  message(FATAL_ERROR "waitscope-replay --serial failed: ${serialStatus}")
endif()
file(READ "${WORK}/mpi.txt" mpiText)
file(READ "${WORK}/serial.txt" serialText)
if(mpiText STREQUAL "" OR NOT mpiText STREQUAL serialText)
  message(FATAL_ERROR "mpi and in-process results differ (or are empty) for ${TRACE}")
endif()
if(CORRECTED)
  if(NOT serialText MATCHES "diagnostic\tclock_corrected_" OR serialText MATCHES "clock_violations_")
    message(FATAL_ERROR "the corrected analysis of ${TRACE} did not correct all clock violations")
  endif()
endif()
file(READ "${WORK}/mpi.stat" mpiStat)
file(READ "${WORK}/trace.stat" serialStat)
if(NOT mpiStat STREQUAL serialStat)
  message(FATAL_ERROR "mpi and in-process trace.stat differ for ${TRACE}")
endif()
file(SHA256 "${WORK}/mpi.cubex" mpiCube)
file(SHA256 "${WORK}/report.cubex" serialCube)
if(NOT mpiCube STREQUAL serialCube)
  message(FATAL_ERROR "mpi and in-process report.cubex differ for ${TRACE}")
endif()
