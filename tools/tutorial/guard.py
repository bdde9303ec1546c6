"""The object check of `make grade`: what the student's compiled files define, call and run
before main, read from the object files (nm, readelf, objdump) before the tests run.

The student's .cu files are compiled into the test program, so their code could replace
a function the tests use, call the reference instead of computing, end the run, write
files or run commands. Each object compiled from a student file (on either backend) must:

0. define only the names the exercise's header declares (--headers), helpers of its own
   that nothing else refers to, and what the compiler emits for them: never a name that
   the C runtime's start-up objects (crti.o calls __gmon_start__ before any constructor),
   the dynamic loader, a shared library or another part of the program refers to, nor a
   reserved identifier of the student's (two leading underscores, or one and a capital);
1. define only what no other part of the program defines: a strong definition of a name
   that the harness, Catch2, common/, the chapter's reference code, the backend or a
   shared library (libc, libstdc++, libm, the CUDA runtime) also defines would replace
   it. The functions the chapter's header declares are the student's to define (the
   solution's object defines them too). A weak definition (an inline function or a
   template instantiation from a header) is allowed where another object of the program
   defines it too, because the student's objects are linked last and the linker keeps the
   first copy; where only a shared library defines it, it would interpose the library's,
   and is refused unless the solution's object defines it as well. No ifunc symbols,
   whose resolvers run before any constructor.
2. call only: the student's own files; what the chapter's solution calls, when solutions/
   is there (its objects are the baseline, built with the same flags: an allowance for
   what a compiler might add, which no solution needs today);  the C and C++ runtime's computing, memory, formatting and
   printing functions, math (all of libm), operator new and delete, and the std:: library
   except files, threads, processes, signals and the ways to end a program; the CUDA
   runtime (libcudart's functions, or the CPU backend's cuda* functions and the internals
   that its translation calls, namespaces emu::detail and emu::traffic::detail, and
   emu::async, the asynchronous copies and barriers of <cuda/pipeline> and <cuda/barrier>),
   but not its functions that move data between host and device or give the host a view of
   device data (HOST_DEVICE_DATA: cudaMemcpy*, pinned, mapped and managed memory, the
   driver's cuMemcpy*), which no exercise's host code needs: an answer computed on the host
   and copied in is not the kernel's; and
   of the functions of common/ and of the chapter's own .cpp files, only those a kernel's
   host wrapper needs (ALLOWED_PROJECT: argument checks, CUDA error checks, launch
   helpers, the copy of a matrix into rows on 16 bytes that chapters 8 and 10 make), never what reaches files (tutorial::write_file), the environment, the
   references or the test cases. Never the test program, the harness, Catch2, or the CPU
   backend's controls (emu::set_schedules and the like).
3. run nothing before main that could precede the grader's channel: no constructor or
   destructor with a priority (.init_array.N, .fini_array.N), no .preinit_array, .ctors,
   .dtors, .init or .fini section. Static initialisers of default priority (the CPU
   backend makes some) run after the harness has taken its channel.
4. hold no system-call instruction (syscall, sysenter, int) in its machine code;
5. include only its chapter's headers, common/'s, the harness's public headers, the CPU
   backend's and the system's and CUDA's, as the compiler's dependency files (--depfiles)
   list them: never a reference solution (solutions/, build/*/solutions) or another file
   of the course.

  guard --backend B --student OBJ.. [--baseline OBJ..] --parts OBJ.. --callable-parts
        OBJ_OR_ARCHIVE.. [--backend-parts OBJ..] [--headers H..] [--depfiles D..
        --chapter-dir DIR [--source-dir DIR]] --binary PROGRAM --out FILE

--parts: the test program's objects that student code may not call (its test.o, the
harness); --callable-parts: those it may call but for their references (the chapter's own
.cpp files, common/'s archives); --backend-parts: the CPU backend's objects. --binary: a program linked from the same parts and trusted
(the solution's), whose shared libraries ldd lists.

writes FILE: one line per finding, "refused: <reason>", or nothing when the objects pass;
the exit status is 0 either way (1 when the check itself could not run).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

# C functions and objects a student's code may call: computing, memory, formatting and
# printing (stdout and stderr only: nothing here opens a file or writes a descriptor),
# exceptions and the compiler's own helpers. Math comes from libm, whole.
ALLOWED_C = set("""
memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strchr strrchr strstr strcpy
strncpy strcat strncat printf puts putchar fputs fputc putc fwrite fprintf vprintf vfprintf fflush
snprintf sprintf vsnprintf vsprintf __printf_chk __fprintf_chk __vfprintf_chk __vprintf_chk
__sprintf_chk __snprintf_chk __vsnprintf_chk __vsprintf_chk __memcpy_chk __memmove_chk __memset_chk
__strcpy_chk __strncpy_chk __strcat_chk __strncat_chk stdout stderr malloc calloc realloc free
aligned_alloc posix_memalign abs labs llabs div ldiv qsort bsearch strtol strtoll strtoul strtoull
strtod strtof atoi atol atof __errno_location __stack_chk_fail __assert_fail __cxa_atexit atexit
__dso_handle __cxa_guard_acquire __cxa_guard_release __cxa_guard_abort __cxa_allocate_exception
__cxa_free_exception __cxa_throw __cxa_begin_catch __cxa_end_catch __cxa_rethrow __cxa_pure_virtual
__cxa_deleted_virtual __cxa_call_unexpected __cxa_get_exception_ptr __cxa_throw_bad_array_new_length
__cxa_bad_cast __cxa_bad_typeid __gxx_personality_v0 _Unwind_Resume __tls_get_addr
_GLOBAL_OFFSET_TABLE_
""".split())

# Demangled names: the C++ runtime, but not what touches files, threads, processes or
# signals, nor what ends the program.
ALLOWED_CXX = re.compile(r"^(operator new|operator delete|std::|__gnu_cxx::|__cxxabiv1::)")
REFUSED_CXX = re.compile(
    r"^std::(.*\b)?(basic_[io]?fstream|basic_filebuf|__basic_file|filesystem|thread|this_thread|jthread|"
    r"system|exit|_Exit|quick_exit|at_quick_exit|atexit|abort|terminate|set_terminate|raise|signal|"
    r"longjmp|getenv|async|future|packaged_task)\b")
# What the compiler adds to a name ("typeinfo for std::exception"): the name is what follows.
SPECIAL = re.compile(r"^(typeinfo name for |typeinfo for |vtable for |VTT for |construction vtable for |"
                     r"guard variable for |reference temporary #\d+ for |TLS init function for |"
                     r"TLS wrapper function for |non-virtual thunk to |virtual thunk to )")
# The CPU backend: the cuda* API and what its translation of a .cu file calls.
EMU_ALLOWED = re.compile(r"^(cuda\w*|blockIdx|blockDim|gridDim|threadIdx|warpSize|"
                         r"emu::detail::.*|emu::traffic::detail::.*|emu::async::.*)(\(|$)")

# The CUDA runtime's and driver's functions that move data between host and device, or give
# the host a view of device data (pinned, mapped and managed memory): no exercise's host
# code calls them (the tests copy the inputs in and the results out), so a student's code
# that calls them is computing the answer on the host and copying it in. One list, matched
# on the name without its parameters; refused on both backends, even where the exercise's
# solution were to call it (make check grades every solution with these checks, so none may).
# (cudaMemset stays allowed: chapter 9's given code clears with it.)
HOST_DEVICE_DATA = re.compile(
    r"^(cudaMemcpy\w*|cudaMemcpy2D\w*|cudaMemcpy3D\w*|cudaMemcpyPeer\w*|cudaMemcpyBatch\w*|"
    r"cudaMemcpyToSymbol\w*|cudaMemcpyFromSymbol\w*|cudaMemcpyToArray\w*|cudaMemcpyFromArray\w*|"
    r"cudaMemcpyArrayToArray\w*|cudaMallocHost|cudaHostAlloc|cudaHostRegister|cudaHostGetDevicePointer|"
    r"cudaMallocManaged|cudaMemPrefetchAsync\w*|cudaMemAdvise\w*|cudaStreamAttachMemAsync|"
    r"cudaGraphAddMemcpyNode\w*|cudaGraphMemcpyNodeSetParams\w*|cudaGraphExecMemcpyNodeSetParams\w*|"
    r"cuMemcpy\w*|cuMemHostAlloc\w*|cuMemAllocHost\w*|cuMemHostRegister\w*|cuMemHostGetDevicePointer\w*|"
    r"cuMemAllocManaged|cuMemPrefetchAsync\w*|cuMemAdvise\w*|cuStreamAttachMemAsync)(\(|$)")

# The runtime's doors to the driver's functions by name: through them a student's code could
# reach any driver function, cuMemcpy* included, with a string the object check cannot read.
# Refused unless the chapter's registry line says driver=yes (chapters 8 and 10 ask for
# cuTensorMapEncodeTiled); there the test programs on a GPU answer only the names the course
# uses (harness/driver_entry_points.cpp), as the CPU backend does.
DRIVER_ENTRY_POINTS = re.compile(r"^(cudaGetDriverEntryPoint\w*|cuGetProcAddress\w*)(\(|$)")

# The project's functions a kernel's host wrapper needs: argument checks, CUDA error checks
# and launch helpers (most of these are inline, and then the student's own object defines
# them). Nothing else of common/ or the chapter's .cpp files: some reach files
# (tutorial::write_file, tutorial::read_pgm), the environment or the test cases.
# A function template's demangled name starts with its return type ("float const* tutorial::...").
ALLOWED_PROJECT = re.compile(r"^(?:[^(]*\s)?tutorial::(require_\w+|throw_if_cuda_error|check_kernel|CudaError::~?CudaError|"
                             r"synchronous_kernel_checks|ceil_div|launch_instance_for|LaunchConfig::\w+|rows_on_16_bytes)(\(|<|$)")
# What nvcc and the C++ compiler name for the student's own code: a kernel's host stub
# (__device_stub__Z...), with -rdc the registration of the linked binary, its fat binary
# wrapper and file-static variables (__nv_static_NN__...), and the personality routine's
# reference (DW.ref.__gxx_personality_v0). Reserved names the student did not write.
COMPILER_EMITTED = re.compile(r"^(__device_stub__|__cudaRegisterLinkedBinary_|__fatbinwrap_|__nv_static_|"
                              r"__sti____cudaRegisterAll|DW\.ref\.)")
# A reserved identifier: two leading underscores, or one and a capital letter.
RESERVED = re.compile(r"^(__|_[A-Z])")
# Namespaces of the libraries whose headers define inline functions and templates that a
# student's object instantiates (std::__detail::...): their names are the library's.
LIBRARY_NAMESPACE = re.compile(r"^(std|__gnu_cxx|__cxxabiv1|cuda|cub|thrust|nv|cooperative_groups|emu)::")
# Where the C runtime's start-up code is: it refers to names (crti.o's __gmon_start__) that
# it calls before any constructor when the program defines them.
C_RUNTIME_OBJECTS = ("Scrt1.o", "crt1.o", "crti.o", "crtn.o", "crtbeginS.o", "crtendS.o", "crtbegin.o", "crtend.o")

STRONG = set("TDBRGSC")
WEAK = set("WVu")
UNDEFINED = set("Uwv")  # w and v: weak references, which may stay unresolved
# Sections that run code before main (or after it) at a time the student would choose.
REFUSED_SECTION = re.compile(r"^\.(preinit_array|init_array\.|fini_array\.|ctors|dtors|init$|fini$|interp$)")
SYSCALL = re.compile(r"^\s*[0-9a-f]+:\s+(syscall|sysenter|int)\b(.*)$")


class CheckError(RuntimeError):
    pass


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckError(f"{' '.join(command)} failed: {done.stderr.strip()[:300]}")
    return done.stdout


def _demangle(names: list[str]) -> dict[str, str]:
    if not names:
        return {}
    done = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True)
    out = done.stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def symbols(path: Path, dynamic: bool = False) -> list[tuple[str, str]]:
    """(name, nm type letter) of every global symbol of an object, archive or shared library."""
    command = ["nm", "-P", "-g"] + (["-D"] if dynamic else []) + [str(path)]
    found = []
    for line in _run(command).splitlines():
        fields = line.split()
        if len(fields) >= 2 and not line.endswith(":"):
            name, kind = fields[0], fields[1]
            if name.endswith(":") and len(fields) >= 3:  # "archive[member.o]:" before the name
                name, kind = fields[1], fields[2]
            found.append((name.split("@")[0], kind))
    return found


def archive_members(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Per member of an archive (or the object itself), its global symbols."""
    members: dict[str, list[tuple[str, str]]] = {}
    current = path.name
    for line in _run(["nm", "-P", "-g", "-A", str(path)]).splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        where = fields[0].rstrip(":")
        member = where[where.find("[") + 1:where.rfind("]")] if "[" in where else current
        members.setdefault(member, []).append((fields[1].split("@")[0], fields[2]))
    return members


def shared_libraries(binary: Path) -> list[Path]:
    """The shared libraries a program needs (readelf's NEEDED entries, found on its RUNPATH,
    then where the compiler and the system keep them): read, never run, since the program
    may hold the student's code."""
    dynamic = _run(["readelf", "-d", "-W", str(binary)])
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", dynamic)
    places: list[Path] = []
    for paths in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^]]+)\]", dynamic):
        places += [Path(d) for d in paths.split(":") if d]
    found = []
    for name in needed:
        compiler = subprocess.run(["c++", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        candidates = [d / name for d in places] + [Path(compiler)] + \
            [Path(d) / name for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                                      "/lib", "/usr/lib", "/usr/local/lib")]
        path = next((c for c in candidates if c.is_absolute() and c.exists()), None)
        if path is None:
            raise CheckError(f"{binary} needs {name}, which was not found")
        found.append(path)
    return found


def c_runtime_objects() -> list[Path]:
    """The C runtime's start-up objects that the compiler links into every program."""
    found = []
    for name in C_RUNTIME_OBJECTS:
        path = subprocess.run(["c++", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        if path and Path(path).is_absolute() and Path(path).exists():
            found.append(Path(path))
    return found


def interpreter(binary: Path) -> list[Path]:
    """The dynamic loader the program names (PT_INTERP), which runs before everything else."""
    match = re.search(r"Requesting program interpreter: ([^]]+)\]", _run(["readelf", "-l", "-W", str(binary)]))
    return [Path(match.group(1))] if match and Path(match.group(1)).exists() else []


def qualified_parts(readable: str) -> list[str]:
    """The components of a demangled name, without its parameters and template arguments:
    "ns::Type<int>::f(int)" -> ["ns", "Type", "f"]."""
    name, depth, current, parts = short_name(readable), 0, "", []
    name = name[:-5] if name.endswith("(...)") else name[:-2] if name.endswith("()") else name
    i = 0
    while i < len(name):
        c = name[i]
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif depth == 0 and name.startswith("::", i):
            parts.append(current)
            current = ""
            i += 2
            continue
        elif depth == 0:
            current += c
        i += 1
    return [p.strip() for p in parts + [current] if p.strip()]


def reserved_name(name: str, readable: str) -> bool:
    """Whether a defined name is a reserved identifier the student wrote: two leading
    underscores or one and a capital, in the name or any of its scopes, other than what the
    compiler emits and the names of the libraries' own namespaces."""
    if COMPILER_EMITTED.match(name):
        return False
    if not name.startswith("_Z"):
        return bool(RESERVED.match(name))
    text = SPECIAL.sub("", readable)
    if COMPILER_EMITTED.match(text) or LIBRARY_NAMESPACE.match(text):
        return False
    return any(RESERVED.match(part) for part in qualified_parts(text))


def declared_in(headers: list[Path]) -> set[str]:
    """The identifiers the exercise's headers name."""
    words: set[str] = set()
    for header in headers:
        words |= set(re.findall(r"[A-Za-z_]\w*", header.read_text(errors="replace")))
    return words


def short_name(readable: str) -> str:
    """A demangled name without its parameter list: "tutorial::gemm_reference(...)"."""
    depth = 0
    for i, c in enumerate(readable):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0 and i > 0 and not readable.startswith("operator", i - 8):
            return readable[:i] + ("()" if readable[i:].startswith("()") else "(...)")
    return readable


def check(student: list[Path], baseline: list[Path], parts: list[Path], backend_parts: list[Path],
          binary: Path, backend: str, callable_parts: list[Path] = (), headers: list[Path] = (),
          driver_entry: bool = False) -> list[str]:
    defined_elsewhere: dict[str, str] = {}  # name -> which part defines it
    referenced_elsewhere: dict[str, str] = {}  # name -> a part, start-up object or library that refers to it
    defined_by_objects: set[str] = set()
    callable_project: set[str] = set()  # common/'s functions, but not its references
    backend_names: set[str] = set()
    for part in list(parts) + list(callable_parts) + list(backend_parts):
        for member, syms in archive_members(part).items():
            owner = f"{part}({member})" if part.suffix == ".a" else str(part)
            for name, kind in syms:
                if kind in UNDEFINED:
                    referenced_elsewhere.setdefault(name, owner)
                    continue
                defined_elsewhere.setdefault(name, owner)
                defined_by_objects.add(name)
                if part in backend_parts:
                    backend_names.add(name)
                elif part in callable_parts and "reference" not in name.lower() and "cases" not in member:
                    # The test-case machinery (common/gemm/gemm_cases.cpp) runs the reference
                    # and reports on it: the tests' to call, not the student's.
                    callable_project.add(name)
    library_exports: dict[str, str] = {}
    math: set[str] = set()
    cuda_runtime: set[str] = set()
    for start_up in c_runtime_objects():
        for name, kind in symbols(start_up):
            if kind in UNDEFINED:
                referenced_elsewhere.setdefault(name, f"{start_up.name} (the C runtime's start-up)")
    for loader in interpreter(binary):
        for name, kind in symbols(loader, dynamic=True):
            if kind in UNDEFINED:
                referenced_elsewhere.setdefault(name, f"{loader.name} (the dynamic loader)")
    for library in shared_libraries(binary):
        for name, kind in symbols(library, dynamic=True):
            if kind in UNDEFINED:
                referenced_elsewhere.setdefault(name, library.name)
            if kind not in UNDEFINED:
                library_exports.setdefault(name, library.name)
                if library.name.startswith("libm."):
                    math.add(name)
                if library.name.startswith("libcudart"):
                    cuda_runtime.add(name)
    baseline_defined: dict[str, str] = {}
    baseline_calls: set[str] = set()
    for path in baseline:
        for name, kind in symbols(path):
            if kind in UNDEFINED:
                baseline_calls.add(name)
            else:
                baseline_defined[name] = kind
    own: dict[Path, list[tuple[str, str]]] = {path: symbols(path) for path in student}
    student_defined = {name for syms in own.values() for name, kind in syms if kind not in UNDEFINED}
    everything = sorted({name for syms in own.values() for name, _ in syms})
    readable = _demangle(everything)

    def allowed_call(name: str) -> bool:
        if driver_entry_point(name):
            return driver_entry
        # Before the solution's calls: were a solution to copy device data (as chapter 10's once
        # did, through DeviceBuffer::download), the students' copies would pass with it.
        if host_device_data(name):
            return False
        if name in baseline_calls or name in student_defined or name in ALLOWED_C or name in math:
            return True
        if backend == "cuda" and (name in cuda_runtime or name.startswith("__cuda")):
            return True
        if backend == "cuda" and name == "exit":
            # nvcc gives every __device__ function of external linkage a host body that
            # calls exit(1). A student's call of exit ends the run before the harness
            # reports its end, which the judge scores 0 and names.
            return True
        text = SPECIAL.sub("", readable.get(name, name))
        if ALLOWED_CXX.match(text) and not REFUSED_CXX.match(text):
            return True
        if name in backend_names:
            return bool(EMU_ALLOWED.match(text))
        return name in callable_project and bool(ALLOWED_PROJECT.match(text))

    def host_device_data(name: str) -> bool:
        return bool(HOST_DEVICE_DATA.match(SPECIAL.sub("", readable.get(name, name))))

    def driver_entry_point(name: str) -> bool:
        return bool(DRIVER_ENTRY_POINTS.match(SPECIAL.sub("", readable.get(name, name))))

    declared = declared_in(list(headers))

    def exercise_name(name: str) -> bool:
        """A name the exercise's header declares, for the student to define: the program refers
        to it and nothing else defines it."""
        parts = qualified_parts(SPECIAL.sub("", readable.get(name, name)))
        return bool(parts) and parts[-1] in declared and name not in defined_elsewhere \
            and name not in library_exports

    findings: list[str] = []
    for path, syms in own.items():
        source = path.name
        for name, kind in syms:
            shown = short_name(readable.get(name, name))
            if kind == "i":
                findings.append(f"{source} defines {shown} as an ifunc, whose resolver runs before the tests")
            elif kind in UNDEFINED:
                if not allowed_call(name):
                    owner = defined_elsewhere.get(name) or library_exports.get(name)
                    where = f" (from {Path(owner).name if '(' not in owner else owner.split('/')[-1]})" if owner else ""
                    if host_device_data(name):
                        findings.append(f"{source} calls {short_name(readable.get(name, name)).removesuffix('(...)')}"
                                        f": your exercise's code moves no data between host and device (the tests "
                                        f"do): the answer must be computed by your kernels, not on the host and "
                                        f"copied in")
                    elif driver_entry_point(name):
                        findings.append(f"{source} calls {short_name(readable.get(name, name)).removesuffix('(...)')}"
                                        f": your exercise asks the CUDA driver for no function by name (through "
                                        f"it, code could reach any driver function, copies included)")
                    elif name in callable_project:
                        findings.append(f"{source} calls or uses {shown}{where}, a function of the project that a "
                                        f"kernel's host wrapper does not need: student code may call only its "
                                        f"argument checks, launch helpers and CUDA error checks")
                    else:
                        findings.append(f"{source} calls or uses {shown}{where}, which student code may not use")
            elif kind in STRONG and name not in baseline_defined and \
                    (defined_elsewhere.get(name) or library_exports.get(name)):
                owner = defined_elsewhere.get(name) or library_exports.get(name)
                findings.append(f"{source} defines {shown}, which {owner} defines: it would replace it")
            elif kind in WEAK and name not in defined_by_objects and name not in baseline_defined and \
                    library_exports.get(name):
                findings.append(f"{source} defines {shown}, which {library_exports[name]} defines: "
                                f"it would replace it")
            elif (kind in STRONG or (name not in defined_by_objects and not LIBRARY_NAMESPACE.match(
                    SPECIAL.sub("", readable.get(name, name))))) and name in referenced_elsewhere and \
                    not COMPILER_EMITTED.match(name) and not exercise_name(name):
                owner = referenced_elsewhere[name]
                findings.append(f"{source} defines {shown}, which {owner if '(' in owner else Path(owner).name} "
                                f"refers to and the exercise's header does not declare: the runtime, a library or "
                                f"another part of the program would call the student's code")
            elif reserved_name(name, readable.get(name, name)):
                findings.append(f"{source} defines {shown}, a reserved identifier (two leading underscores, or "
                                f"one and a capital letter), which only the compiler, the C runtime and the "
                                f"libraries may define")
        for line in _run(["readelf", "-S", "-W", str(path)]).splitlines():
            match = re.match(r"\s*\[\s*\d+\]\s+(\S+)", line)
            if match and REFUSED_SECTION.match(match.group(1)):
                findings.append(f"{source} has a section {match.group(1)}: code that runs before or after the "
                                f"tests at a time it chooses")
        for line in _run(["objdump", "-d", "--no-show-raw-insn", str(path)]).splitlines():
            match = SYSCALL.match(line)
            if match:
                findings.append(f"{source} contains the instruction '{match.group(1)}{match.group(2).rstrip()}': "
                                f"a system call made without the C library")
    return list(dict.fromkeys(findings))


# Outside the course, the headers of the system, the compiler and CUDA.
SYSTEM_HEADER_PLACES = ("/usr/", "/opt/", "/lib/", "/lib64/")
HEADER_SUFFIXES = (".h", ".hpp", ".cuh")


def dependencies(depfile: Path) -> list[str]:
    """The prerequisites of the first rule of a compiler's dependency file (-MMD)."""
    text = depfile.read_text(errors="replace").replace("\\\n", " ")
    first = text.split("\n", 1)[0]
    return first.split(":", 1)[1].split() if ":" in first else []


def include_findings(depfiles: list[Path], chapter_dir: Path, source_dir: Path, root: Path) -> list[str]:
    """What a student's file includes, from its compiler's dependency files: only its
    chapter's headers (and its own .cu files), common/'s, the harness's public headers, the
    CPU backend's CUDA headers, and the system's and CUDA's; never a reference solution,
    a test, or anything built. @p source_dir holds the files compiled (chapters/NN-name, or
    solutions/NN-name when the solutions are graded); the first prerequisite is the file
    compiled itself."""
    cuda_home = os.environ.get("CUDA_HOME", "")
    findings = []
    for depfile in depfiles:
        source = depfile.name.split(".")[0] + ".cu"
        for dependency in dependencies(depfile)[1:]:
            path = Path(os.path.normpath(root / dependency))
            try:
                inside = path.relative_to(root)
            except ValueError:
                inside = None
            if inside is None:
                if str(path).startswith(SYSTEM_HEADER_PLACES) or (cuda_home and str(path).startswith(cuda_home + "/")):
                    continue
                why = "a file outside the course and the system's and CUDA's headers"
            else:
                folder, parts = inside.parent, inside.parts
                own = (folder == chapter_dir and inside.suffix in HEADER_SUFFIXES) or \
                    (folder == source_dir and inside.suffix in HEADER_SUFFIXES + (".cu",))
                built_own = len(parts) > 3 and parts[0] == "build" and Path(*parts[2:-1]) == source_dir and \
                    (inside.name.endswith(".cu.cpp") or inside.name.endswith(".ptxas.h"))
                library = parts[0] == "common" and inside.suffix in HEADER_SUFFIXES
                harness = folder == Path("harness") and inside.suffix in HEADER_SUFFIXES and \
                    inside.name != "grade_channel.h"
                # The CPU backend's headers, and the floor they stand on (gpu_model/: the
                # traffic counters an element access returns in a profiling build).
                backend = parts[:2] in (("emu", "include"), ("gpu_model", "include"))
                if own or built_own or library or harness or backend:
                    continue
                if "solutions" in parts:
                    why = "a reference solution"
                elif parts[0] == "build":
                    why = "something built, not a header of the course"
                else:
                    why = "another file of the course"
            findings.append(f"{source} includes {inside or path}, {why}: a student file may include only its "
                            f"chapter's headers, common/'s, the harness's public headers, the backend's and the system's and CUDA's")
    return findings


def guard(args) -> int:
    if not Path(args.binary).exists():
        raise SystemExit(f"guard: {args.binary} does not exist: build the program first")
    try:
        findings = check([Path(p) for p in args.student], [Path(p) for p in args.baseline],
                         [Path(p) for p in args.parts], [Path(p) for p in args.backend_parts],
                         Path(args.binary), args.backend, [Path(p) for p in args.callable_parts],
                         [Path(p) for p in args.headers], bool(getattr(args, "driver_entry", False)))
        if args.chapter_dir:
            findings += include_findings([Path(p) for p in args.depfiles if Path(p).exists()],
                                         Path(args.chapter_dir), Path(args.source_dir or args.chapter_dir), Path.cwd())
            findings = list(dict.fromkeys(findings))  # nvcc's check and the translation list the same includes
    except CheckError as error:
        Path(args.out).write_text(f"refused: the object check could not run: {error}\n")
        print(f"guard: {error}")
        return 1
    Path(args.out).write_text("".join(f"refused: {f}\n" for f in findings))
    for finding in findings:
        print(f"refused: {finding}")
    return 0
