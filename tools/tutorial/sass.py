"""make chapterN sass: the memory and barrier instructions nvcc makes of each kernel, counted.

make compiles each of the chapter's .cu files for the profile's architecture (mk/profile.mk):
to a cubin where cuobjdump is installed, whose machine code (SASS) `cuobjdump -sass` prints;
else to PTX (`nvcc -ptx`), the virtual instructions nvcc hands ptxas. This module counts,
per kernel, the instructions that move memory or wait: global and shared loads and stores
with their widths, cp.async (LDGSTS), bulk and TMA copies (UBLKCP, UTMALDG), atomics and
reductions, barriers, mbarrier operations and shuffles.

The counts are static: how many such instructions the kernel's code holds, each counted once
where it appears, not how often it runs (a loop's body counts once; an unrolled loop's copies
each count). PTX is not SASS: ptxas may still merge, split, drop or add instructions (an
atom whose result is unused becomes a RED; four consecutive 4-byte shared loads may become
one LDS.128), so PTX counts are only a guide to the SASS.

Python 3 standard library only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

from .course import Refusal

# ---- SASS (cuobjdump -sass) -----------------------------------------------------------------
# "		Function : _Z13sample_kernelPK6float4PS_" starts a kernel's code, and each instruction is
# "        /*0100*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;" (an optional predicate).
SASS_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
SASS_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)")

# Width modifiers of SASS loads and stores; without one, an access is 32 bits.
SASS_WIDTHS = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128}
# The families counted with their widths, in the order a listing shows them.
SASS_MEMORY = ["LDG", "STG", "LD", "ST", "LDS", "STS", "LDL", "STL", "LDGSTS"]
# The families counted by their operation (the second part of the name): UTMALDG.2D, ATOMS.ADD.
SASS_OPERATIONS = ["LDSM", "STSM", "UTMALDG", "UTMASTG", "UBLKCP", "ATOMS", "ATOMG", "ATOM", "RED", "BAR", "SYNCS", "DEPBAR", "LDGDEPBAR",
                   "ARRIVES", "SHFL"]
# Modifiers that say nothing of what the instruction does to memory: left out of the names.
SASS_NOISE = {"E", "U", "CONSTANT", "EF", "EL", "LU", "STRONG", "GPU", "SYS", "SM", "CTA", "BYPASS", "LTC64B", "LTC128B",
              "LTC256B", "ZFILL", "DEFER_BLOCKING", "64", "128", "U8", "S8", "U16", "S16", "32"}


def classify_sass(opcode: str) -> tuple[str, int | None] | None:
    """(name, width in bits or None) of a SASS opcode that moves memory or waits; None for any other.
    "LDG.E.128.CONSTANT" -> ("LDG", 128); "LDS.U8" -> ("LDS", 8); "RED.E.ADD.STRONG.GPU" -> ("RED.ADD", None)."""
    parts = opcode.split(".")
    family, modifiers = parts[0], parts[1:]
    if family in SASS_MEMORY:
        width = next((SASS_WIDTHS[m] for m in modifiers if m in SASS_WIDTHS), 32)
        return family, width
    if family in SASS_OPERATIONS:
        operation = next((m for m in modifiers if m not in SASS_NOISE), None)
        return (f"{family}.{operation}" if operation else family), None
    return None


def count_sass(text: str) -> dict[str, Counter]:
    """Per kernel (its mangled name, in the listing's order), the count of each instruction
    classify_sass keeps, from `cuobjdump -sass` output."""
    kernels: dict[str, Counter] = {}
    current = None
    for line in text.splitlines():
        function = SASS_FUNCTION.match(line)
        if function:
            current = kernels.setdefault(function.group(1), Counter())
            continue
        instruction = SASS_INSTRUCTION.match(line)
        if instruction and current is not None:
            kept = classify_sass(instruction.group(1))
            if kept:
                current[kept] += 1
    return kernels


# ---- PTX (nvcc -ptx) ------------------------------------------------------------------------
# ".visible .entry _Z13sample_kernelPK6float4PS_(" names a kernel, whose body is from the next
# "{" alone on a line (a declaration ends in ";" before one) to a "}" alone, unindented
# (inline assembly's braces are indented). ".func" bodies (device functions
# nvcc did not inline) are counted under their own names.
PTX_FUNCTION = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")
PTX_INSTRUCTION = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)(.*)$")
PTX_TYPE_BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16, "b32": 32, "u32": 32,
                 "s32": 32, "f32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64, "b128": 128}
PTX_SPACES = ["global", "shared::cluster", "shared::cta", "shared", "local", "param", "const"]


def _ptx_width(parts: list[str]) -> int | None:
    bits = next((PTX_TYPE_BITS[p] for p in parts if p in PTX_TYPE_BITS), None)
    lanes = {"v2": 2, "v4": 4, "v8": 8}
    count = next((lanes[p] for p in parts if p in lanes), 1)
    return bits * count if bits else None


def classify_ptx(opcode: str, operands: str = "") -> tuple[str, int | None] | None:
    """(name, width in bits or None) of a PTX instruction that moves memory or waits; None
    for any other. "ld.global.nc.v4.f32" -> ("ld.global", 128); "cp.async.cg.shared.global"
    with operands "[%r1], [%rd1], 16, 16;" -> ("cp.async", 128): its copy size in bits;
    "bar.sync" -> ("bar.sync", None)."""
    parts = opcode.split(".")
    head = parts[0]
    if head in ("ld", "st"):
        space = next((s for s in PTX_SPACES if s in parts), None)
        if space in ("param", "const"):
            return None
        name = f"{head}.{space.replace('::cta', '')}" if space else f"{head} (generic)"
        return name, _ptx_width(parts)
    if head == "cp" and len(parts) > 1 and parts[1] == "reduce":  # cp.reduce.async.bulk[.tensor]: a bulk reduction
        return ".".join(parts[:5] if len(parts) > 4 and parts[4] == "tensor" else parts[:4]), None
    if head == "cp" and len(parts) > 2 and parts[1] == "async":
        if parts[2] == "mbarrier":  # cp.async.mbarrier.arrive: an arrival when the thread's copies land
            return ".".join(parts[:4]), None
        if parts[2] in ("commit_group", "wait_group", "wait_all") or (parts[2] == "bulk" and len(parts) > 3 and
                                                                       parts[3] in ("commit_group", "wait_group")):
            return ".".join(parts[:4] if parts[2] == "bulk" else parts[:3]), None
        if parts[2] == "bulk":
            return ("cp.async.bulk.tensor" if len(parts) > 3 and parts[3] == "tensor" else "cp.async.bulk"), None
        size = re.match(r"\s*\[[^\]]*\]\s*,\s*\[[^\]]*\]\s*,\s*(\d+)", operands)
        return "cp.async", (int(size.group(1)) * 8 if size else None)
    if head in ("atom", "red"):
        space = next((s for s in PTX_SPACES if s in parts), None)
        operation = next((p for p in parts[1:] if p not in PTX_SPACES and p not in PTX_TYPE_BITS and
                          p not in ("relaxed", "acquire", "release", "acq_rel", "gpu", "cta", "sys", "cluster", "noftz")), None)
        name = f"{head}.{space.replace('::cta', '')}" if space else head
        name = f"{name}.{operation}" if operation else name
        return (name if space else f"{name} (generic)"), None
    if head in ("bar", "barrier"):
        return ".".join(parts[:3] if len(parts) > 1 and parts[1] == "cluster" else parts[:2]), None
    if head == "mbarrier":
        return ".".join(parts[:2]), None
    if head == "shfl":
        return ".".join(p for p in parts[:3]), None
    return None


def count_ptx(text: str) -> dict[str, Counter]:
    """Per kernel or device function (its mangled name, in the file's order), the count of each
    instruction classify_ptx keeps, from `nvcc -ptx` output."""
    kernels: dict[str, Counter] = {}
    current = None
    pending = None  # a function's name, until its body's "{" (a definition) or a ";" (a declaration)
    for line in text.splitlines():
        code = line.split("//", 1)[0]
        function = PTX_FUNCTION.match(code)
        if function and current is None:
            pending = function.group(2)
        if current is None:
            if pending and code.rstrip().endswith(";"):
                pending = None
            elif pending and code.strip() == "{":
                current, pending = kernels.setdefault(pending, Counter()), None
            continue
        if code.rstrip() == "}" and not code.startswith((" ", "\t")):
            current = None
            continue
        instruction = PTX_INSTRUCTION.match(code)
        if instruction and not code.lstrip().startswith("."):
            kept = classify_ptx(instruction.group(1), instruction.group(2))
            if kept:
                current[kept] += 1
    return kernels


# ---- The listing -------------------------------------------------------------------------------
def demangle(names: list[str]) -> dict[str, str]:
    """Readable names, "box_mean_shared_kernel<2>", with c++filt when there is one (else as they are)."""
    readable = {n: n for n in names}
    if names and shutil.which("c++filt"):
        done = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True)
        out = done.stdout.splitlines()
        if done.returncode == 0 and len(out) == len(names):
            for name, text in zip(names, out):
                text = re.sub(r"^void ", "", text)
                readable[name] = text[:text.find("(")] if "(" in text else text
    return readable


def _order(key: tuple[str, int | None]) -> tuple:
    name, width = key
    families = ["LDG", "ld.global", "STG", "st.global", "LD", "ld (generic)", "ST", "st (generic)", "LDS", "ld.shared",
                "STS", "st.shared", "LDSM", "STSM", "ld.shared::cluster", "st.shared::cluster", "LDL", "ld.local", "STL", "st.local",
                "LDGSTS", "cp.async", "LDGDEPBAR", "DEPBAR", "cp.async.commit_group", "cp.async.wait_group",
                "cp.async.wait_all", "cp.async.mbarrier.arrive", "UBLKCP", "cp.async.bulk", "UTMALDG", "cp.async.bulk.tensor", "UTMASTG",
                "cp.async.bulk.commit_group", "cp.async.bulk.wait_group", "SYNCS", "mbarrier", "ARRIVES", "ATOMS",
                "atom.shared", "red.shared", "ATOMG", "ATOM", "atom.global", "atom", "RED", "red.global", "red", "BAR", "bar", "barrier", "SHFL", "shfl"]
    # The family itself, else the longest that it extends: cp.async.bulk.tensor is not cp.async.
    matches = [i for i, f in enumerate(families) if name == f or name.startswith(f + ".")]
    rank = max(matches, key=lambda i: len(families[i])) if matches else len(families)
    return rank, name, width or 0


def listing(kernels: dict[str, Counter]) -> list[str]:
    """The lines of one file's listing: each kernel's name, then its instructions and counts."""
    names = demangle(list(kernels))
    lines = []
    for mangled, counts in kernels.items():
        lines.append(f"  {names[mangled]}")
        if not counts:
            lines.append("     no memory or barrier instruction")
        for key in sorted(counts, key=_order):
            name, width = key
            lines.append(f"     {name:<30} {f'{width}-bit' if width else '':>8} {counts[key]:>6}")
    return lines


CUOBJDUMP_MISSING = ("PTX instructions, not SASS: cuobjdump is not installed here, so these are the instructions nvcc "
                     "hands ptxas (nvcc -ptx), which ptxas may still merge, split or change. cuobjdump comes with "
                     "NVIDIA's CUDA Toolkit (its apt repository's package cuda-cuobjdump-13-0, or pip install "
                     "nvidia-cuda-cuobjdump); with it on the PATH, or named by CUOBJDUMP=/path/to/cuobjdump, "
                     "make chapterN sass counts the SASS.")


def source_of(compiled: Path) -> str:
    """The .cu file make compiled into @p compiled: build/sass/TREE/FOLDER/NAME-ARCH.EXT (mk/profile.mk)
    comes from TREE/FOLDER/NAME.cu."""
    parts = compiled.parts
    if "sass" in parts and len(parts) >= parts.index("sass") + 4:
        tree, folder = parts[parts.index("sass") + 1:parts.index("sass") + 3]
        return f"{tree}/{folder}/{compiled.stem.rsplit('-', 1)[0]}.cu"
    return str(compiled)


def run(args) -> int:
    """make chapterN sass: the listing of each compiled file (.cubin: its SASS by cuobjdump; .ptx: its PTX)."""
    if args.no_nvcc:
        raise Refusal("make sass needs nvcc, the CUDA compiler, which is not installed here (make setup says how).")
    files = [Path(f) for f in args.files]
    if not files:
        raise Refusal("No .cu file to list in the chapters named.")
    ptx = [f for f in files if f.suffix == ".ptx"]
    if ptx:
        print(CUOBJDUMP_MISSING)
    else:
        print(f"SASS instructions, from cuobjdump -sass ({args.cuobjdump}).")
    print(f"For {args.arch}; static counts: each instruction once where it appears in the code, not how often it runs.")
    for f in files:
        if f.suffix == ".cubin":
            if not args.cuobjdump:
                raise Refusal(f"{f} is a cubin, and without cuobjdump it cannot be listed: remove it and run make again.")
            done = subprocess.run([args.cuobjdump, "-sass", str(f)], capture_output=True, text=True)
            if done.returncode != 0:
                raise Refusal(f"cuobjdump -sass {f} failed:\n{done.stderr}")
            kernels = count_sass(done.stdout)
        else:
            kernels = count_ptx(f.read_text(encoding="utf-8"))
        print()
        print(f"{source_of(f)} ({f}):")
        for line in listing(kernels):
            print(line)
    return 0

