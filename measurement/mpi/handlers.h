// Every handler the generated wrappers construct.
#pragma once

#include "call.h"
#include "collectives.h"
#include "comm_idup.h"
#include "communicators.h"
#include "completion.h"
#include "environment.h"
#include "file_io.h"
#include "persistent_collectives.h"
#include "point_to_point.h"
#include "rma.h"
#include "silent_request.h"

namespace waitscope::measure::mpi {
using bytes::allgather; // keep the bytes:: namespace visible to generated code
} // namespace waitscope::measure::mpi
