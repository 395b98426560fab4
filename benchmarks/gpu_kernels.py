"""What the compiled GPU kernels do, without a GPU: resources a thread, and how they store.

Each kernel of both games is compiled to PTX for sm_90 by numba-cuda (``compile_ptx``) and
assembled by nvJitLink (``shell_envs.core.cuda.assemble``).  For each, the report gives from
ptxas the registers a thread, spills, stack, shared memory and constant memory (the kernel's
parameters, ``cmem[0]``, and the module's tables, ``cmem[3]``) with the threads an SM holds at
128 a block; and from the PTX, for every array the kernel writes, how its stores fall:

- *coalesced*: the address moves by exactly the element size from one thread to the next
  (game ``i`` writes next to game ``i + 1``), so a warp's stores fill whole 32-byte sectors;
- *data-indexed*: where the store goes depends on the game's own data (a card's fields at
  its id, an egg's order at its cell, a legal action's mask entry): scattered by design;
- *strided*: anything else, e.g. game-major rows, where neighbours write a row apart.

`store_strides` finds the stride by following each store's address back through the PTX
(integer arithmetic on the kernel parameters and ``%tid.x``) to its coefficient of the thread
index; ``tests/gpu/test_ptx_stores.py`` checks it and the layouts' guarantees.

Usage: python benchmarks/gpu_kernels.py [--cc 9.0]
"""

from __future__ import annotations

import argparse
import inspect
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from shell_envs.core import cuda
from shell_envs.scorpion import gpu as scorpion_gpu
from shell_envs.what_the_shell import gpu as what_the_shell_gpu

REGISTERS_PER_SM = 65536  # Hopper (sm_90): registers of one multiprocessor
THREADS_PER_SM = 2048
GAMES = (("What the Shell", what_the_shell_gpu), ("Scorpion", scorpion_gpu))
COALESCED, DATA_INDEXED, STRIDED = "coalesced", "data-indexed", "strided"


@dataclass(frozen=True)
class _Value:
    """What the analysis knows of a register: its coefficient of ``%tid.x`` (None: not a
    multiple of it), its value if constant, the kernel parameters it comes from, whether it is
    known not to be negative, and whether it depends on memory contents."""

    coef: int | None = 0
    const: int | None = None
    params: frozenset[int] = frozenset()
    nonneg: bool = False
    data: bool = False


def _join(a: _Value, b: _Value) -> _Value:
    """A register assigned in two places (loops, branches): what holds for both."""
    return _Value(
        a.coef if a.coef == b.coef else None,
        a.const if a.const == b.const else None,
        a.params | b.params,
        a.nonneg and b.nonneg,
        a.data or b.data,
    )


_WIDTHS = {"8": 1, "16": 2, "32": 4, "64": 8}
_LINE = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.]*)\s*(.*?);\s*(?://.*)?$")
_PARAM = re.compile(r"_param_(\d+)\]?$")
_SPECIAL = {"%tid.x": _Value(1, None, frozenset(), True)}
_UNIFORM = ("%ntid.x", "%ctaid.x", "%nctaid.x")


def _instructions(ptx: str) -> list[tuple[str, list[str]]]:
    """The instructions of the (one) kernel in ``ptx``: opcode and operands."""
    body = ptx[ptx.index("{", ptx.index(")", ptx.index(".entry"))) :]
    out = []
    for line in body.splitlines():
        match = _LINE.match(line)
        if match and not match.group(1).startswith("."):
            operands = match.group(2)
            out.append((match.group(1), [o.strip() for o in re.split(r",(?![^{]*})", operands)]))
    return out


def _arith(op: str, a: _Value, b: _Value) -> _Value:
    """The value of ``a op b`` for the integer operations addresses are made of."""
    params, data = a.params | b.params, a.data or b.data
    if op in ("add", "sub"):
        sign = 1 if op == "add" else -1
        coef = None if a.coef is None or b.coef is None else a.coef + sign * b.coef
        const = None if a.const is None or b.const is None else a.const + sign * b.const
        return _Value(coef, const, params, op == "add" and a.nonneg and b.nonneg, data)
    if op == "mul":
        if a.const is not None and b.const is None:
            a, b = b, a
        if b.const is not None and a.coef is not None:
            const = None if a.const is None else a.const * b.const
            return _Value(a.coef * b.const, const, params, a.nonneg and b.const >= 0, data)
        coef = 0 if a.coef == 0 and b.coef == 0 else None
        return _Value(coef, None, params, a.nonneg and b.nonneg, data)
    if op == "shl" and b.const is not None and 0 <= b.const < 64 and a.coef is not None:
        const = None if a.const is None else a.const << b.const
        return _Value(a.coef << b.const, const, params, a.nonneg, data)
    if op == "shr" and a.nonneg and b.const is not None and b.const >= 63:
        return _Value(0, 0, frozenset(), True)  # the sign bits of a non-negative number
    if op == "and" and (a.const == 0 or b.const == 0):
        return _Value(0, 0, frozenset(), True)
    return _Value(0 if a.coef == 0 and b.coef == 0 else None, None, params, False, data)


def store_strides(ptx: str) -> list[tuple[frozenset[int], int, int | None, bool]]:
    """Every store to memory in the kernel of ``ptx``: ``(parameters its address comes from,
    bytes it writes, how far it moves from one thread to the next or None, whether its
    address depends on memory contents)``.

    A forward analysis over the PTX's integer registers to a fixed point: ``%tid.x`` moves
    by 1, ``%ctaid.x`` and ``%ntid.x`` not at all (the thread index is ``ctaid * ntid +
    tid``); sums, products by constants and shifts carry the coefficient; a loaded value
    carries "depends on data"; a register assigned in several places keeps what all agree on.
    The thread index is never negative, so numba's wrap-around of negative indices is 0.
    """
    code = _instructions(ptx)
    regs: dict[str, _Value] = {}

    def value(operand: str) -> _Value | None:
        operand = operand.strip()
        if operand in _SPECIAL:
            return _SPECIAL[operand]
        if operand in _UNIFORM:
            return _Value(0, None, frozenset(), True)
        if operand.startswith("%"):
            return regs.get(operand)
        try:
            number = int(operand, 16 if operand.lower().startswith("0x") else 10)
        except ValueError:
            return _Value(None, None, frozenset(), False, True)  # a float or a symbol
        return _Value(0, number, frozenset(), number >= 0)

    stores: dict[int, tuple[_Value, int]] = {}
    for _ in range(100):
        changed = False
        for n, (opcode, ops) in enumerate(code):
            parts = opcode.split(".")
            head = parts[0]
            if head == "st" and not {"local", "shared", "param"} & set(parts):
                address = value(ops[0].strip("[]").split("+")[0])
                vector = next((int(p[1:]) for p in parts if re.fullmatch(r"v\d", p)), 1)
                width = _WIDTHS[re.sub(r"\D", "", parts[-1])] * vector
                if address is not None and stores.get(n) != (address, width):
                    stores[n] = (address, width)
                continue
            if not ops or not ops[0].startswith("%") or head in ("st", "bra", "setp", "call"):
                continue
            target, sources = ops[0], ops[1:]
            if head == "ld":
                match = _PARAM.search(sources[0]) if "param" in parts else None
                new = (
                    _Value(0, None, frozenset([int(match.group(1))]))
                    if match
                    else _Value(None, None, frozenset(), False, True)
                )
            else:
                if head == "selp":  # the predicate is not a value
                    sources = sources[:2]
                values = [value(s) for s in sources]
                if any(v is None for v in values):
                    continue
                if head in ("mov", "cvt", "cvta"):
                    new = values[0]
                elif head in ("add", "sub", "mul", "shl", "shr", "and") and len(values) == 2:
                    new = _arith(head, *values)
                elif head == "mad" and len(values) == 3:
                    new = _arith("add", _arith("mul", values[0], values[1]), values[2])
                elif head == "selp":
                    new = _join(*values)
                else:
                    new = _Value(
                        0 if all(v.coef == 0 for v in values) else None,
                        None,
                        frozenset().union(*(v.params for v in values)),
                        False,
                        any(v.data for v in values),
                    )
            old = regs.get(target)
            merged = new if old is None else _join(old, new)
            if merged != old:
                regs[target] = merged
                changed = True
        if not changed:
            break
    unresolved = len([op for op, _ in code if op.startswith("st.")]) - len(stores)
    if unresolved:
        raise ValueError(f"{unresolved} stores whose address the analysis could not follow")
    return [(v.params, width, v.coef, v.data) for v, width in stores.values()]


def argument_names(kernel: cuda.Kernel) -> list[str]:
    """The names of a kernel's arguments after ``n`` (its body's parameters after ``i``)."""
    return list(inspect.signature(kernel.body).parameters)[1:]


def data_parameters(signature: tuple[Any, ...]) -> dict[int, int]:
    """PTX parameter index of each array argument's data pointer: ``{parameter: argument}``.
    numba passes ``n`` first, then an array as meminfo, parent, size, itemsize, data, its
    shape and its strides, a scalar as one parameter."""
    from numba import types

    found, index = {}, 1
    for k, ty in enumerate(signature):
        if isinstance(ty, types.Array):
            found[index + 4] = k
            index += 5 + 2 * ty.ndim
        else:
            index += 1
    return found


def store_kinds(kernel: cuda.Kernel, signature: tuple[Any, ...], ptx: str) -> dict[str, Counter]:
    """For each argument the kernel stores into, how many stores are coalesced, data-indexed
    and strided (see the module docstring)."""
    names = argument_names(kernel)
    data = data_parameters(signature)
    out: dict[str, Counter] = {}
    for params, width, stride, indexed in store_strides(ptx):
        arrays = [data[p] for p in params if p in data]
        if len(arrays) != 1:
            raise ValueError(f"{kernel.name}: a store into {len(arrays)} arrays at once")
        if indexed:
            kind = DATA_INDEXED
        elif stride == width:
            kind = COALESCED
        else:
            kind = STRIDED
        out.setdefault(names[arrays[0]], Counter())[kind] += 1
    return out


def resources(report: str) -> dict[str, int]:
    """Registers, spills, stack, shared and constant bytes from ptxas's verbose report."""

    def total(pattern: str) -> int:
        return sum(int(x) for x in re.findall(pattern, report))

    return {
        "registers": int(re.search(r"[Uu]sed (\d+) registers", report).group(1)),
        "spill_bytes": total(r"(\d+) bytes spill stores"),
        "stack_bytes": total(r"(\d+) bytes stack frame") + total(r"(\d+) stack,"),
        "shared_bytes": total(r"(\d+) bytes smem"),
        "params_bytes": total(r"(\d+) bytes cmem\[0\]"),
        "tables_bytes": total(r"(\d+) bytes cmem\[3\]"),
    }


def occupancy(registers: int) -> int:
    """Threads an SM holds at `cuda.THREADS_PER_BLOCK` a block, bounded by registers."""
    block = cuda.THREADS_PER_BLOCK
    allocated = -(-registers // 8) * 8  # registers are allocated 8 a thread at a time
    return min(REGISTERS_PER_SM // (allocated * block) * block, THREADS_PER_SM)


def kernels(cc: tuple[int, int]) -> list[dict[str, Any]]:
    """Every kernel of both games once per signature: its resources and its stores."""
    rows = []
    for game, module in GAMES:
        for kernel, signature in module.kernel_signatures():
            ptx = cuda.compile_ptx(kernel, signature, cc=cc)
            row = {"game": game, "kernel": kernel.name, "signature": signature}
            row.update(resources(cuda.assemble(ptx, cc=cc)))
            row["threads_per_sm"] = occupancy(row["registers"])
            row["stores"] = store_kinds(kernel, signature, ptx)
            rows.append(row)
    return rows


def report(cc: tuple[int, int]) -> str:
    """Two Markdown tables: resources a kernel, and the stores of each output it writes."""
    rows = kernels(cc)
    lines = [
        f"| game | kernel | registers | spills | stack | shared | params (cmem[0]) | "
        f"tables (cmem[3]) | threads an SM holds (sm_{cc[0]}{cc[1]}) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    seen = set()
    for r in rows:
        key = (r["game"], r["kernel"], r["registers"])
        if key in seen:
            continue
        seen.add(key)
        lines.append(
            f"| {r['game']} | `{r['kernel']}` | {r['registers']} | {r['spill_bytes']} | "
            f"{r['stack_bytes']} | {r['shared_bytes']} | {r['params_bytes']:,} | "
            f"{r['tables_bytes']:,} | {r['threads_per_sm']} of {THREADS_PER_SM} |"
        )
    lines += [
        "",
        "| game | kernel | array | coalesced | data-indexed | strided |",
        "|---|---|---|---:|---:|---:|",
    ]  # noqa: E501
    seen = set()
    for r in rows:
        for name, kinds in sorted(r["stores"].items()):
            key = (r["game"], r["kernel"], name, tuple(sorted(kinds.items())))
            if key in seen:
                continue
            seen.add(key)
            lines.append(
                f"| {r['game']} | `{r['kernel']}` | `{name}` | {kinds[COALESCED]} | "
                f"{kinds[DATA_INDEXED]} | {kinds[STRIDED]} |"
            )
    return "\n".join(lines)


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cc", default="9.0", help="compute capability (default 9.0)")
    args = parser.parse_args()
    major, minor = (int(x) for x in args.cc.split("."))
    print(report((major, minor)))


if __name__ == "__main__":
    main()
