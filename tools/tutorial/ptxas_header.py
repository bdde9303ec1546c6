"""The header that carries ptxas' report of one .cu file into its CPU-backend object.

The occupancy API needs each kernel's registers per thread, which only ptxas knows. For a
chapter whose registry line says occupancy=yes, mk/emu.mk keeps ptxas' report of each .cu
file and has this module turn it into a header that registers the report at startup
(emu/include/emu/ptxas_report.h); without nvcc the header registers no report, and the API
then says why it cannot answer.
"""
import re
from pathlib import Path

# The lines of a report that name a kernel and give its registers; the rest is noise here.
KERNEL_LINE = re.compile(r"Compiling entry function|ptxas info *: Used ")


def write(args) -> int:
    if args.report:
        kept = [line for line in Path(args.report).read_text(encoding="utf-8").splitlines() if KERNEL_LINE.search(line)]
        report = 'R"emu_ptxas(\n' + "".join(line + "\n" for line in kept) + ')emu_ptxas"'
    else:
        report = "nullptr"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        f"// Generated (tools/tutorial/ptxas_header.py): what ptxas reported of {args.source}, for the occupancy API.\n"
        "#include <emu/ptxas_report.h>\n"
        "[[maybe_unused]] static const bool emu_ptxas_report_registered_ =\n"
        f'    ::emu::detail::register_ptxas_report("{args.source}", {report});\n', encoding="utf-8")
    return 0
