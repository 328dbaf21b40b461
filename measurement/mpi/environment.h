// The environment calls (MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort), which start,
// end and rescue the measurement.
#pragma once

#include <mpi.h>

namespace waitscope::measure::mpi {

int custom_MPI_Init(int* argc, char*** argv) noexcept;
int custom_MPI_Init_thread(int* argc, char*** argv, int required, int* provided) noexcept;
int custom_MPI_Finalize() noexcept;
int custom_MPI_Abort(MPI_Comm comm, int errorcode) noexcept;

} // namespace waitscope::measure::mpi
