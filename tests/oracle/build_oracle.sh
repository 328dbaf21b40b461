#!/bin/sh
# Builds Scalasca 2.6's trace analyzer (scout.mpi, square) into PREFIX, outside the project.
# On demand only, never in CI. Usage: build_oracle.sh PREFIX [SCALASCA_SOURCE_DIR]
# Without a source directory it clones the public repository at the commit the references were made
# with. The one patch: OTF2 3.0 records communicator creation/destruction as collectives of types
# 17-22, which Scalasca 2.6's reader rejects; they are mapped to MPI_Alltoallv, a collective SCOUT
# never synchronizes, so no wait state is attributed to them (as for tests/data/reference).
# Debian packages needed besides the project's: binutils-dev libiberty-dev.
set -eu
[ $# -ge 1 ] || { echo "usage: build_oracle.sh PREFIX [SCALASCA_SOURCE_DIR]" >&2; exit 2; }
prefix=$(realpath -m "$1")
work="$prefix/../oracle-build"
commit=0f2cfe259ca452cd7e4c0968cfcd9ee3ade9c769
mkdir -p "$work"
src="${2:-}"
if [ -z "$src" ]; then
    src="$work/scalasca"
    if [ ! -d "$src" ]; then
        git clone https://github.com/OpenCMISS-Dependencies2/scalasca.git "$src"
        git -C "$src" checkout -q "$commit"
    fi
fi
src=$(realpath "$src")
# The repository stores its scripts without execute bits.
find "$src" -type f \( -name configure -o -name '*.sh' -o -name config.guess -o -name config.sub \
    -o -name install-sh -o -name missing -o -name depcomp -o -name ylwrap -o -name ar-lib \
    -o -name test-driver -o -name compile -o -name ltmain.sh \) -exec chmod +x {} +

# One timestamp for every source file, so that make never tries to regenerate the autotools files
# (a clone's files carry checkout times in no useful order; automake is not needed otherwise).
if [ ! -f "$work/build/Makefile" ]; then
    find "$src" -type f -not -path '*/.git/*' -exec touch -d 2022-02-04T00:00:00 {} +
fi

helpers="$src/src/pearl/base/Otf2TypeHelpers.cpp"
if ! grep -q 'OTF2 3.0 handle collectives' "$helpers"; then
    python3 - "$helpers" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = """        case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
            return MpiCollEnd_rep::REDUCE_SCATTER_BLOCK;
"""
assert anchor in text, "otf2ConvertCollectiveType not found"
text = text.replace(anchor, anchor + """
        // OTF2 3.0 handle collectives (types 17-22): never synchronizing
        default:
            return MpiCollEnd_rep::ALLTOALLV;
""", 1)
open(path, "w").write(text)
PY
fi

build="$work/build"
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
    "$src/configure" --prefix="$prefix" --with-mpi=openmpi --disable-openmp --without-otf2 --without-cubew \
        --with-nocross-compiler-suite=gcc CFLAGS=-O2 CXXFLAGS="-O2 -std=gnu++11 -w"
fi
make -j"${JOBS:-2}"
make install
echo "oracle: $prefix/bin/scout.mpi"
