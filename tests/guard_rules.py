"""The object check's rule on host-device copies (tools/tutorial/guard.py) holds even where the
exercise's solution makes the same call: a solution that copied device data to the host once
let every student's copy of the answer through (chapter 10's, on a GPU). A student object
that calls cudaMemcpy is refused with the sentence a student sees, with and without a
baseline that calls it too."""

import subprocess
import tempfile
from pathlib import Path

from tool_checks import check, finish
from tools.tutorial import guard


def compiled(folder: Path, name: str, source: str) -> Path:
    path = folder / f"{name}.cpp"
    path.write_text(source)
    subprocess.run(["g++", "-c", "-O1", str(path), "-o", str(path.with_suffix(".o"))], check=True)
    return path.with_suffix(".o")


with tempfile.TemporaryDirectory() as scratch:
    folder = Path(scratch)
    copying = compiled(folder, "copying", 'extern "C" int cudaMemcpy(void*, const void*, unsigned long, int);\n'
                                          "void answer(float* d, const float* h) { cudaMemcpy(d, h, 4, 1); }\n")
    binary = Path("/bin/true")
    for baseline, why in (([], "without a baseline"), ([copying], "with a solution that makes the same call")):
        findings = guard.check([copying], baseline, [], [], binary, "cuda")
        text = "\n".join(findings)
        check(any(f.startswith("copying.o calls cudaMemcpy: your exercise's code moves no data between host and device")
                  for f in findings), f"a student's cudaMemcpy is refused {why}", text)
# The project's helpers a host wrapper may call, by their demangled names: a function
# template's begins with its return type; a look-alike elsewhere in the name is not one.
for text, allowed in (("tutorial::require_gemm_arguments(char const*, float const*)", True),
                      ("float const* tutorial::rows_on_16_bytes<float>(float const*, int)", True),
                      ("void tutorial::write_file(char const*)", False),
                      ("tutorial::write_file(char const*)::tutorial::ceil_div", False)):
    check(bool(guard.ALLOWED_PROJECT.match(text)) == allowed, f"{text}: {'allowed' if allowed else 'refused'}")
finish("tests/guard_rules.py", "host-device copies are refused, even where the solution makes them; the helpers' names")
