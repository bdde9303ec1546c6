"""compile_commands.json for editors (clangd, VS Code), written by the build itself.

  python3 tools/compile_db.py FRAGMENTS        (after a link, once per program)
  python3 tools/compile_db.py FRAGMENTS DIR    (into DIR/compile_commands.json: make check's clangd item)

Each compile rule of the Makefile leaves the command it ran in FRAGMENTS/<source>.args
(the source, then one argument a line; written by the shell, one file per source, so that
compiles running in parallel never write the same file). This script, run once after each
link, gathers them into compile_commands.json at the top of the repository, replacing it
in one rename, and turns each command into one that clang understands. So the file always
describes the backend of the latest build:
- a .cpp file: the compiler's own command;
- a .cu file with BACKEND=cuda: nvcc's command as clang's CUDA mode (-x cuda, one GPU
  architecture, the toolkit's path), since clangd cannot read nvcc's options;
- a .cu file with BACKEND=emu: the CPU backend compiles a translated copy; the editor
  gets the original file as CUDA with the backend's headers, host side only, through
  tools/editor/emu_for_clangd.h.
Python 3 standard library only; it never fails a build (the Makefile ignores its status).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EMU_SHIM = "tools/editor/emu_for_clangd.h"
CLANG_CUDA = ["-x", "cuda", "--no-cuda-version-check"]


def from_nvcc(args: list[str], source: str) -> list[str]:
    """nvcc's command as clang's: the include paths, macros and standard it names, one
    GPU architecture, and the toolkit it came from."""
    out = ["clang++", *CLANG_CUDA]
    nvcc = shutil.which(args[0]) or args[0]
    cuda_home = Path(nvcc).resolve().parent.parent
    out.append(f"--cuda-path={cuda_home}")
    arch = None
    i = 1
    while i < len(args):
        a = args[i]
        take_next = a in ("-I", "-isystem", "-D", "-Xcompiler", "-gencode", "-o", "-include")
        value = args[i + 1] if take_next and i + 1 < len(args) else None
        if a.startswith(("-I", "-isystem", "-D", "-std=", "-include")):
            out += [a] + ([value] if value else [])
        elif a == "-Xcompiler" and value:
            out += [flag for flag in value.split(",") if flag.startswith("-W")]
        elif a.startswith("-arch=") and arch is None:
            arch = a.split("=", 1)[1]
        elif a == "-gencode" and value and arch is None:
            found = re.search(r"code=(sm_\d+)", value)
            arch = found[1] if found else None
        i += 2 if take_next else 1
    out.append(f"--cuda-gpu-arch={arch or 'sm_90'}")
    return out + ["-c", source]


def from_emu(args: list[str], source: str) -> list[str]:
    """The CPU backend's g++ command for the translated copy, for the original .cu."""
    out = [args[0], *CLANG_CUDA, "--cuda-host-only", "-nocudainc", "-nocudalib", "-include", EMU_SHIM]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = a == "-o"
            continue
        if a.endswith(".cu.cpp") or a.startswith(("-fstack-clash", "-MMD", "-MP")):
            continue
        out.append(a)
    return out + ["-c", source]


def entry(source: str, args: list[str]) -> dict:
    if source.endswith(".cu.cpp"):  # build/emu/chapters/01-x/naive_gemm.cu.cpp
        source = re.sub(r"^build/[^/]+/", "", source)[: -len(".cpp")]
        arguments = from_emu(args, source)
    elif source.endswith(".cu"):
        arguments = from_nvcc(args, source)
    else:
        arguments = list(args)
    return {"directory": str(ROOT), "file": source, "arguments": arguments}


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    fragments = Path(sys.argv[1])
    entries = []
    for path in sorted(fragments.rglob("*.args")):
        try:
            source, *args = path.read_text().splitlines()
        except (OSError, ValueError):
            continue  # a fragment being written now; the next link gathers it
        if args:
            entries.append(entry(source, args))
    # A build from before the .args fragments left <source>.json ones: keep those not recompiled since.
    done = {e["file"] for e in entries}
    for path in sorted(fragments.rglob("*.json")):
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if old.get("file") not in done:
            entries.append(old)
    database = (Path(sys.argv[2]) if len(sys.argv) == 3 else ROOT) / "compile_commands.json"
    database.parent.mkdir(parents=True, exist_ok=True)
    temporary = database.with_name(f".compile_commands.json.{os.getpid()}")
    temporary.write_text(json.dumps(entries, indent=1) + "\n")
    temporary.replace(database)
    return 0


if __name__ == "__main__":
    sys.exit(main())
