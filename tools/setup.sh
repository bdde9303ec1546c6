#!/usr/bin/env bash
# `make setup`: install what the tutorial needs, or say exactly what to install.
#
# Required: a C++17 compiler and Catch2 (version 2 or 3); the CUDA Toolkit for a GPU.
# Optional: Doxygen, Graphviz, Python 3 and doxygen-awesome-css (the site's theme), for
# `make docs`; Boost.Context, for a fast CPU backend; OpenBLAS, the CPU's best GEMM, which
# chapter 1's benchmark compares the GPU with; NPP, whose box filter chapter 3's benchmark
# times (reported, not installed: NVIDIA's repository has it); clangd,
# for editors; PyYAML, for the Classroom workflow's check.
# Missing Debian/Ubuntu packages are installed with apt-get when this user may; with
# no network (the GPU machines have none) the attempt fails fast and setup goes on.
# Setup succeeds whenever everything required is present and what the chapters share compiles.
set -u

have() { command -v "$1" >/dev/null 2>&1; }
have_catch2() {
    pkg-config --exists catch2-with-main 2>/dev/null ||
        [ -f /usr/include/catch2/catch.hpp ] || [ -f /usr/local/include/catch2/catch.hpp ]
}
have_nvcc() { have nvcc || [ -x /usr/local/cuda/bin/nvcc ]; }
# The CPU backend (BACKEND=emu) runs CUDA threads as Boost.Context fibers; without it,
# it falls back to glibc's ucontext, which works but switches far more slowly.
# Its header comes with any Boost package, its library only with libboost-context-dev.
have_boost_context() {
    { [ -f /usr/include/boost/context/fiber.hpp ] || [ -f /usr/local/include/boost/context/fiber.hpp ]; } &&
        [[ "$(g++ -print-file-name=libboost_context.so 2>/dev/null)" == /* ]]
}

# OpenBLAS's own cblas.h (it declares openblas_get_num_threads) and its library.
have_openblas() {
    printf '#include <cblas.h>\n' | g++ -E -x c++ - 2>/dev/null | grep -q openblas_get_num_threads &&
        [[ "$(g++ -print-file-name=libopenblas.so 2>/dev/null)" == /* ]]
}
# NPP, NVIDIA's image primitives, beside the CUDA Toolkit's headers: chapter 3's benchmark times
# its box filter. Not a Debian package: NVIDIA's CUDA repository has it (libnpp-dev-X-Y).
cuda_home() { local nvcc; nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); dirname "$(dirname "$nvcc")"; }
have_npp() {
    local home; home=$(cuda_home)
    [ -f "$home/include/nppi_filtering_functions.h" ] &&
        { [ -f "$home/lib64/libnppif.so" ] || [ -f "$home/lib/libnppif.so" ]; }
}
npp_package() {
    local version
    version=$("$(cuda_home)/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1-\2/p')
    echo "libnpp-dev-${version:-X-Y}"
}
have_awesome_css() { [ -f /usr/share/doxygen-awesome-css/doxygen-awesome.css ]; }

missing=()
have_catch2 || missing+=(catch2)
have doxygen || missing+=(doxygen)
have dot || missing+=(graphviz)
have python3 || missing+=(python3)
have g++ || missing+=(g++)
have pkg-config || missing+=(pkg-config)
have_boost_context || missing+=(libboost-context-dev)
have_openblas || missing+=(libopenblas-dev)
have_awesome_css || missing+=(doxygen-awesome-css)
# For the editors (clangd) and make check's workflow item (PyYAML).
have clangd || missing+=(clangd)
python3 -c 'import yaml' 2>/dev/null || missing+=(python3-yaml)

if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: missing packages: ${missing[*]}"
    if have apt-get; then
        if [ "$(id -u)" -eq 0 ]; then sudo=(); elif have sudo && sudo -n true 2>/dev/null; then sudo=(sudo -n); else sudo=(none); fi
        if [ "${sudo[0]:-}" = none ]; then
            echo "setup: not root and no password-less sudo, so not installing."
        else
            apt_options=(-y -q --no-install-recommends -o Acquire::Retries=0 -o Acquire::http::Timeout=15)
            export DEBIAN_FRONTEND=noninteractive
            # A fresh machine may have no package lists yet: update once if the install fails.
            if ! "${sudo[@]}" apt-get install "${apt_options[@]}" "${missing[@]}" >/tmp/tutorial-setup-apt.log 2>&1; then
                timeout 180 "${sudo[@]}" apt-get update -q -o Acquire::Retries=0 >>/tmp/tutorial-setup-apt.log 2>&1 &&
                    "${sudo[@]}" apt-get install "${apt_options[@]}" "${missing[@]}" >>/tmp/tutorial-setup-apt.log 2>&1 ||
                    echo "setup: apt-get could not install them (no network?); its log is /tmp/tutorial-setup-apt.log"
            fi
        fi
    fi
fi

status=0
report() { printf '  %-10s %s\n' "$1" "$2"; }
echo "setup: what this machine has"
if have_nvcc; then
    report nvcc "$( (have nvcc && nvcc --version || /usr/local/cuda/bin/nvcc --version) | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p')"
else
    # Without nvcc the kernels still run, on the CPU backend; a GPU needs the toolkit.
    report nvcc "missing: kernels run on the CPU backend only. For a GPU, install the CUDA Toolkit (13.0 is tested) from https://developer.nvidia.com/cuda-downloads and put its bin/ on PATH"
fi
if have_catch2; then
    if pkg-config --exists catch2-with-main 2>/dev/null; then report Catch2 "$(pkg-config --modversion catch2)"; else report Catch2 "2 (single header)"; fi
else
    report Catch2 "MISSING: install Catch2, e.g. 'sudo apt-get install catch2' (Debian, Ubuntu)"
    status=1
fi
if have g++; then report g++ "$(g++ -dumpfullversion)"; else report g++ "MISSING: install g++"; status=1; fi
if have_boost_context; then
    report Boost "$(sed -n 's/^#define BOOST_LIB_VERSION "\(.*\)"/\1/p' /usr/include/boost/version.hpp /usr/local/include/boost/version.hpp 2>/dev/null | head -n 1 | tr _ .) (Boost.Context, for the CPU backend's fibers)"
else
    report Boost "missing: the CPU backend (BACKEND=emu) falls back to slower ucontext fibers; sudo apt-get install libboost-context-dev"
fi
if have doxygen; then report Doxygen "$(doxygen --version)"; else report Doxygen "missing (only 'make docs' needs it): sudo apt-get install doxygen"; fi
if have_awesome_css; then report Theme "doxygen-awesome-css (the course site's look)"; else report Theme "missing (the site gets Doxygen's plain look): sudo apt-get install doxygen-awesome-css"; fi
if have_openblas; then report OpenBLAS "yes (chapter 1's benchmark compares the GPU with it)"; else report OpenBLAS "missing (chapter 1's benchmark times the CPU's triple loop only): sudo apt-get install libopenblas-dev"; fi
if have_nvcc; then
    if have_npp; then
        report NPP "yes (chapter 3's benchmark times NPP's box filter beside your kernels)"
    else
        report NPP "missing (chapter 3's benchmark says so in NPP's row and goes on): install $(npp_package) from NVIDIA's CUDA repository (apt-get install $(npp_package) where that repository is set up), or the NPP component of the CUDA runfile installer"
    fi
fi
if have dot; then report Graphviz "$(dot -V 2>&1 | sed 's/.*version //')"; else report Graphviz "missing (docs are built without graphs): sudo apt-get install graphviz"; fi
if have python3; then
    python_version=$(python3 --version 2>&1 | sed 's/Python //')
    if python3 -c 'import tomllib' 2>/dev/null; then report Python "$python_version"; else
        report Python "$python_version (make results, make profile-tables and make chapterN roofline read the chapters' chapter.toml: they need 3.11 or later)"; fi
else report Python "missing (the verbs, status, hint, grade, watch..., are Python): sudo apt-get install python3"; fi
if have clangd; then report clangd "$(clangd --version 2>/dev/null | head -n 1 | sed 's/.*version //') (editors: .clangd and compile_commands.json)"; else report clangd "missing (only editors need it): sudo apt-get install clangd"; fi
if have nvidia-smi && gpu=$(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null | head -n 1) && [ -n "$gpu" ]; then
    report GPU "$gpu"
else
    report GPU "none found: kernels run on the CPU backend (BACKEND=emu, docs/cpu-backend.md)"
fi

# What every chapter shares is compiled here, once (about 35 files, a minute or two on two
# cores), so that a first `make chapterN test` compiles only the chapter's own files.
if [ "$status" -eq 0 ]; then
    echo "setup: compiling what every chapter shares (the test harness, the library, the CPU backend), once..."
    mkdir -p build
    if ! make --no-print-directory shared >build/setup.log 2>&1; then
        echo "setup: that build failed; its log is build/setup.log. Fix what it says, then run 'make setup' again."
        exit 1
    fi
fi
if [ "$status" -eq 0 ]; then
    echo "setup: ready. Next: make chapter1 test"
else
    echo "setup: install what is MISSING above, then run 'make setup' again."
fi
exit "$status"
