# Runs waitscope-replay under mpirun and with --serial on one trace; the value dumps, trace.stat
# and report.cubex of both must be identical.
# Variables: REPLAY, MPIRUN, TRACE, RANKS, WORK.
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${MPIRUN}" -np ${RANKS} --oversubscribe "${REPLAY}" --quiet --output-dir "${WORK}"
                        --dump-text "${WORK}/mpi.txt" "${TRACE}"
                RESULT_VARIABLE mpiStatus TIMEOUT 120)
if(NOT mpiStatus EQUAL 0)
  message(FATAL_ERROR "mpirun waitscope-replay failed: ${mpiStatus}")
endif()
file(RENAME "${WORK}/trace.stat" "${WORK}/mpi.stat")
file(RENAME "${WORK}/report.cubex" "${WORK}/mpi.cubex")
execute_process(COMMAND "${REPLAY}" --serial --quiet --output-dir "${WORK}" --dump-text "${WORK}/serial.txt" "${TRACE}"
                RESULT_VARIABLE serialStatus TIMEOUT 120)
if(NOT serialStatus EQUAL 0)
  message(FATAL_ERROR "waitscope-replay --serial failed: ${serialStatus}")
endif()
file(READ "${WORK}/mpi.txt" mpiText)
file(READ "${WORK}/serial.txt" serialText)
if(mpiText STREQUAL "" OR NOT mpiText STREQUAL serialText)
  message(FATAL_ERROR "mpi and in-process results differ (or are empty) for ${TRACE}")
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
