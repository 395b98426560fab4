#!/usr/bin/env bash
# The GPU path's checks and figures in one run, on a machine with an NVIDIA GPU (issue 49).
#
#   bash benchmarks/gpu_check.sh OUT [--wheels DIR] [STEP ...]
#
# Steps (all by default, in this order; each under its own time limit and all of them within
# 9 minutes, each one's output in OUT/log.txt, a failed one reported and the others still run):
#   versions  Python, numpy, numba, numba-cuda, cuda-core, torch, the GPU and its driver
#   tests     the real-GPU tests: both GPU envs against the CPU batched envs (every encoder,
#             both layouts, copy=True), directly and through TorchRL (rollouts and a
#             collector compared with the CPU env's, check_env_specs on cuda, one PPO
#             iteration); a skipped test fails the step (a missing package or device)
#   bench     benchmarks/gpu.py (both layouts, host µs a step, pgx, the CPU envs):
#             OUT/gpu.json, OUT/gpu.md
#   scaling   the CPU batched envs at 2 threads and at all: OUT/cpu_scaling.json
#   ppo       examples/train_torchrl_ppo.py on the GPU, 36 s of training a game: OUT/ppo_<game>/
# --wheels DIR installs the wheels in DIR first (into /tmp/site, for a machine that cannot
# reach PyPI; benchmarks/gpu_wheels.txt lists them and how to fetch them).  Exits 1 if a step
# failed.
set -u -o pipefail
usage="usage: bash benchmarks/gpu_check.sh OUT [--wheels DIR] [STEP ...]"
out=${1:?$usage}
shift
wheels=""
if [ "${1:-}" = "--wheels" ]; then
  wheels=${2:?$usage}
  shift 2
fi
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(versions tests bench scaling ppo)
mkdir -p "$out"
log="$out/log.txt"
site=""
if [ -n "$wheels" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$wheels"/*.whl || exit 1
  site=/tmp/site
fi
# the checkout first (the carried pgx has a top-level "tests" package too), then the wheels
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${site:+:$site}${PYTHONPATH:+:$PYTHONPATH}"
# torch, numba-cuda and JAX share the GPU in one process: JAX takes memory as it needs it
export XLA_PYTHON_CLIENT_PREALLOCATE=false

failed=0
deadline=$((SECONDS + 540))  # the whole run: 9 minutes
run() {  # NAME SECONDS COMMAND...: the command under a time limit, its output logged
  local name=$1 limit=$2
  shift 2
  local left=$((deadline - SECONDS))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 5 ]; then
    echo "!! $name not run: the 9 minutes are spent" | tee -a "$log"
    failed=1
    return
  fi
  echo "== $name $(date -u +%FT%TZ)" | tee -a "$log"
  timeout "$limit" "$@" 2>&1 | tee -a "$log"
  local code=$?
  if [ $code -ne 0 ]; then
    echo "!! $name failed (exit $code)" | tee -a "$log"
    failed=1
  fi
}

for step in "${steps[@]}"; do
  case $step in
  versions)
    run versions 40 python3 -c "
import platform, numpy, numba, numba_cuda, cuda.core as cuda_core, torch, jax, pgx, torchrl
import gymnasium, pettingzoo
from numba import cuda
print(platform.python_version(), 'numpy', numpy.__version__, 'numba', numba.__version__,
      'numba-cuda', numba_cuda.__version__, 'cuda-core', cuda_core.__version__,
      'torch', torch.__version__, 'jax', jax.__version__, 'pgx', pgx.__version__,
      'torchrl', torchrl.__version__, 'gymnasium', gymnasium.__version__,
      'pettingzoo', pettingzoo.__version__)
print(cuda.get_current_device().name, torch.cuda.get_device_name())"
    run driver 20 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    ;;
  tests)  # on a GPU machine nothing may skip: a skip there is a missing package or device
    run tests 170 bash -c 'python3 -m pytest -q -rs -p no:cacheprovider tests/gpu \
      tests/integrations/test_torchrl_env.py -k "real_gpu or on_a_gpu" 2>&1 | tee /tmp/tests.txt
      test "${PIPESTATUS[0]}" -eq 0 && ! grep -q "^SKIPPED" /tmp/tests.txt'
    ;;
  bench)
    run bench 170 python3 benchmarks/gpu.py --budget 120 --seconds 0.3 --out "$out/gpu"
    ;;
  scaling)
    run scaling 60 python3 benchmarks/cpu_scaling.py --threads 2 "$(nproc)" --seconds 0.5 \
      --repeats 3 --json "$out/cpu_scaling.json"
    ;;
  ppo)
    for game in what_the_shell scorpion; do
      run "ppo_$game" 55 python3 examples/train_torchrl_ppo.py --game "$game" --device cuda \
        --minutes 0.6 --out "$out/ppo_$game"
    done
    ;;
  *)
    echo "unknown step $step; $usage" >&2
    exit 2
    ;;
  esac
done
exit $failed
