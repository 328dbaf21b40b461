// The Fortran entry points of the MPI file calls that take a string (a file name, a data
// representation), which the generator does not convert: a Fortran CHARACTER argument comes
// with its length as a hidden argument after the others, blank-padded, not NUL-terminated.
#include "fortran_support.h"

#include <cstddef>
#include <string>

namespace waitscope::measure::mpi {
namespace {

/// The text of a Fortran CHARACTER argument without its leading and trailing blanks.
std::string fortranString(const char* text, std::size_t length) {
    std::size_t begin = 0;
    while (begin < length && text[begin] == ' ')
        ++begin;
    std::size_t end = length;
    while (end > begin && text[end - 1] == ' ')
        --end;
    return std::string(text + begin, end - begin);
}

} // namespace
} // namespace waitscope::measure::mpi

using namespace waitscope::measure::mpi;

extern "C" WAITSCOPE_EXPORT void mpi_file_open_(MPI_Fint* comm, const char* filename,
                                                MPI_Fint* amode, MPI_Fint* info, MPI_Fint* fh,
                                                MPI_Fint* ierr, std::size_t filenameLength) {
    MPI_File file = MPI_FILE_NULL;
    const int rc =
        MPI_File_open(MPI_Comm_f2c(*comm), fortranString(filename, filenameLength).c_str(),
                      static_cast<int>(*amode), MPI_Info_f2c(*info), &file);
    *fh = MPI_File_c2f(file);
    if (ierr)
        *ierr = static_cast<MPI_Fint>(rc);
}
extern "C" WAITSCOPE_EXPORT void mpi_file_open(MPI_Fint*, const char*, MPI_Fint*, MPI_Fint*,
                                               MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_open_")));
// The name gfortran gives with -fsecond-underscore.
// NOLINTNEXTLINE(bugprone-reserved-identifier)
extern "C" WAITSCOPE_EXPORT void mpi_file_open__(MPI_Fint*, const char*, MPI_Fint*, MPI_Fint*,
                                                 MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_open_")));
extern "C" WAITSCOPE_EXPORT void MPI_FILE_OPEN(MPI_Fint*, const char*, MPI_Fint*, MPI_Fint*,
                                               MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_open_")));
// The mpi_f08 module's name (Open MPI: the same arguments, a TYPE(MPI_File) is its INTEGER).
extern "C" WAITSCOPE_EXPORT void mpi_file_open_f08_(MPI_Fint*, const char*, MPI_Fint*, MPI_Fint*,
                                                    MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_open_")));

extern "C" WAITSCOPE_EXPORT void mpi_file_delete_(const char* filename, MPI_Fint* info,
                                                  MPI_Fint* ierr, std::size_t filenameLength) {
    const int rc =
        MPI_File_delete(fortranString(filename, filenameLength).c_str(), MPI_Info_f2c(*info));
    if (ierr)
        *ierr = static_cast<MPI_Fint>(rc);
}
extern "C" WAITSCOPE_EXPORT void mpi_file_delete(const char*, MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_delete_")));
// The name gfortran gives with -fsecond-underscore.
// NOLINTNEXTLINE(bugprone-reserved-identifier)
extern "C" WAITSCOPE_EXPORT void mpi_file_delete__(const char*, MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_delete_")));
extern "C" WAITSCOPE_EXPORT void MPI_FILE_DELETE(const char*, MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_delete_")));
// The mpi_f08 module's name (Open MPI: the same arguments, a TYPE(MPI_File) is its INTEGER).
extern "C" WAITSCOPE_EXPORT void mpi_file_delete_f08_(const char*, MPI_Fint*, MPI_Fint*,
                                                      std::size_t)
    __attribute__((alias("mpi_file_delete_")));

extern "C" WAITSCOPE_EXPORT void mpi_file_set_view_(MPI_Fint* fh, MPI_Offset* disp, MPI_Fint* etype,
                                                    MPI_Fint* filetype, const char* datarep,
                                                    MPI_Fint* info, MPI_Fint* ierr,
                                                    std::size_t datarepLength) {
    const int rc =
        MPI_File_set_view(MPI_File_f2c(*fh), *disp, MPI_Type_f2c(*etype), MPI_Type_f2c(*filetype),
                          fortranString(datarep, datarepLength).c_str(), MPI_Info_f2c(*info));
    if (ierr)
        *ierr = static_cast<MPI_Fint>(rc);
}
extern "C" WAITSCOPE_EXPORT void mpi_file_set_view(MPI_Fint*, MPI_Offset*, MPI_Fint*, MPI_Fint*,
                                                   const char*, MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_set_view_")));
// The name gfortran gives with -fsecond-underscore.
// NOLINTNEXTLINE(bugprone-reserved-identifier)
extern "C" WAITSCOPE_EXPORT void mpi_file_set_view__(MPI_Fint*, MPI_Offset*, MPI_Fint*, MPI_Fint*,
                                                     const char*, MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_set_view_")));
extern "C" WAITSCOPE_EXPORT void MPI_FILE_SET_VIEW(MPI_Fint*, MPI_Offset*, MPI_Fint*, MPI_Fint*,
                                                   const char*, MPI_Fint*, MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_set_view_")));
// The mpi_f08 module's name (Open MPI: the same arguments, a TYPE(MPI_File) is its INTEGER).
extern "C" WAITSCOPE_EXPORT void mpi_file_set_view_f08_(MPI_Fint*, MPI_Offset*, MPI_Fint*,
                                                        MPI_Fint*, const char*, MPI_Fint*,
                                                        MPI_Fint*, std::size_t)
    __attribute__((alias("mpi_file_set_view_")));
