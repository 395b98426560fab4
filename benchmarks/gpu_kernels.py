"""What ptxas makes of every GPU kernel, without a GPU: registers a thread, spills, stack.

Each kernel of both games is compiled to PTX for sm_90 by numba-cuda (``compile_ptx``) and
assembled by nvJitLink (``shell_envs.core.cuda.assemble``); the report gives the registers
each thread uses (with 128 threads a block, what bounds the blocks an SM holds) and whether
anything spills to local memory.  Needs the ``cuda`` extra, no device.

Usage: python benchmarks/gpu_kernels.py [--cc 9.0]
"""

from __future__ import annotations

import argparse
import re

from shell_envs.core import cuda
from shell_envs.scorpion import gpu as scorpion_gpu
from shell_envs.what_the_shell import gpu as what_the_shell_gpu

REGISTERS_PER_SM = 65536  # Hopper (sm_90): registers of one multiprocessor
THREADS_PER_SM = 2048


def report(cc: tuple[int, int]) -> str:
    """A Markdown table: each kernel once per signature, its registers, spills and stack."""
    lines = [
        f"| game | kernel | registers a thread | spill bytes | stack bytes | "
        f"threads an SM holds (sm_{cc[0]}{cc[1]}, {cuda.THREADS_PER_BLOCK} a block) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    seen = set()
    for game, module in (("What the Shell", what_the_shell_gpu), ("Scorpion", scorpion_gpu)):
        for kernel, signature in module.kernel_signatures():
            text = cuda.assemble(cuda.compile_ptx(kernel, signature, cc=cc), cc=cc)
            registers = int(re.search(r"Used (\d+) registers", text).group(1))
            spills = sum(int(x) for x in re.findall(r"(\d+) bytes spill stores", text))
            stack = sum(int(x) for x in re.findall(r"(\d+) bytes stack frame", text))
            row = (game, kernel.name, registers, spills, stack)
            if row in seen:
                continue
            seen.add(row)
            block = cuda.THREADS_PER_BLOCK
            allocated = -(-registers // 8) * 8  # registers are allocated 8 a thread at a time
            blocks = REGISTERS_PER_SM // (allocated * block)
            threads = min(blocks * block, THREADS_PER_SM)
            lines.append(
                f"| {game} | `{kernel.name}` | {registers} | {spills} | {stack} | "
                f"{threads} of {THREADS_PER_SM} |"
            )
    return "\n".join(lines)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cc", default="9.0", help="compute capability (default 9.0)")
    args = parser.parse_args()
    major, minor = (int(x) for x in args.cc.split("."))
    print(report((major, minor)))


if __name__ == "__main__":
    main()
