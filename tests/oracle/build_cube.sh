#!/bin/sh
# Builds Cube 4.6's library and command-line tools (cube_dump, cube_info, cube_remap2, cube_merge,
# cube_mean, ...; no GUI) into PREFIX, outside the project. Scalasca's `square` is a shell script that
# runs these tools: with PREFIX/bin on PATH it derives trace.cubex (mpi_wait_terminal,
# critical_path_imbalance, ...) from SCOUT's scout.cubex. On demand only, never in CI.
# Usage: build_cube.sh PREFIX [CUBE4_GIT_DIR]
# CUBE4_GIT_DIR is a clone of OpenCMISS-Dependencies2/cube4 (commit 59e731f, "Cube bundle v 4.6");
# without it the script clones the public repository. Only vendor/cubelib is built; blobs missing
# from a partial clone (a few test and example data files) are skipped.
set -eu
[ $# -ge 1 ] || { echo "usage: build_cube.sh PREFIX [CUBE4_GIT_DIR]" >&2; exit 2; }
prefix=$(realpath -m "$1")
work="$prefix/../cube-build"
commit=59e731f6efbc6e905bacc934e6872a315943dc49
mkdir -p "$work"
repo="${2:-}"
if [ -z "$repo" ]; then
    repo="$work/cube4.git"
    [ -d "$repo" ] || git clone --bare https://github.com/OpenCMISS-Dependencies2/cube4.git "$repo"
fi
src="$work/src"
if [ ! -f "$src/vendor/cubelib/configure" ]; then
    git -C "$repo" ls-tree -r "$commit" vendor/cubelib | while read -r mode _ sha path; do
        if git -C "$repo" cat-file -e "$sha" 2>/dev/null; then
            mkdir -p "$src/$(dirname "$path")"
            git -C "$repo" cat-file blob "$sha" >"$src/$path"
            [ "$mode" != 100755 ] || chmod +x "$src/$path"
        else
            echo "build_cube.sh: skipping $path (blob not in $repo)" >&2
        fi
    done
fi
cubelib="$src/vendor/cubelib"
# One timestamp for every source file, so that make never tries to regenerate the autotools files.
find "$src" -type f -exec touch -d 2022-02-04T00:00:00 {} +
# The repository stores its scripts without execute bits.
find "$cubelib" -type f \( -name configure -o -name '*.sh' -o -name config.guess -o -name config.sub \
    -o -name install-sh -o -name missing -o -name depcomp -o -name ylwrap -o -name ar-lib \
    -o -name test-driver -o -name compile -o -name ltmain.sh \) -exec chmod +x {} +

build="$work/build"
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
    "$cubelib/configure" --prefix="$prefix" --with-nocross-compiler-suite=gcc --without-cube-dump-r \
        --disable-static --disable-networking CFLAGS="-O1 -w" CXXFLAGS="-O1 -w"
fi
make -j"${JOBS:-2}"
# The library, headers and tools (the top level's install also wants documentation PDFs, which
# the repository does not hold).
make -C build-frontend install
echo "cube tools: $prefix/bin (put it on PATH before Scalasca's square)"
