#!/usr/bin/env bash
# Times `itdeid train` on a lent GPU machine: issue I asks, when the project's `device` tool lends
# one, that the default recipe and the default model's preset be timed there with xgboost's CUDA
# build, beside the same fits on that machine's CPU cores.
#
# The GPU machine has no registry and takes at most 64 MiB of files a call, so this script only
# unpacks what the caller brings (made on the developer's machine, see experiments/NOTEBOOK.md,
# "Training on a GPU"):
#   .whl/xgb-sm90.tar.xz       xgboost-cu13 3.2.0 with only the sm_90 (H100/H200) kernels kept
#   .whl/wordfreq-slim.tar.xz  wordfreq and its needs, with only the word lists itdeid reads
#   .corpus/physionet-deid     the PhysioNet dev split (never committed)
#   .gitshallow                a one-commit clone of HEAD, so the report names the commit
# and writes experiments/train_time.py's report to $OUT/train-time-gpu.md.
set -euo pipefail
site=/tmp/itdeid-site
mkdir -p "$site"
tar xJf .whl/xgb-sm90.tar.xz -C "$site"
tar xJf .whl/wordfreq-slim.tar.xz -C "$site"
# itdeid from this checkout, as setup.py maps it (pip cannot build there: no registry)
ln -sfn ../features itdeid/features
ln -sfn ../gazetteers itdeid/gazetteers
export PYTHONPATH="$PWD:$site"
# the machine's copy may hold a .git of an older commit: the report must name this one
if [ -d .gitshallow ]; then rm -rf .git && cp -r .gitshallow .git; fi
python3 -c "import xgboost, sklearn, numpy, pandas; print('xgboost', xgboost.__version__, 'cuda', xgboost.build_info().get('USE_CUDA'), 'sklearn', sklearn.__version__, 'numpy', numpy.__version__, 'pandas', pandas.__version__)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
export PYTHONUNBUFFERED=1
python3 experiments/train_time.py .corpus/physionet-deid \
    --config "recipe-cuda=--device cuda" --config "recipe-cpu=" \
    --config "preset-cuda=--preset default --device cuda" --config "preset-cpu=--preset default" \
    --keep /tmp/itdeid-models --out "${OUT:-.}/train-time-gpu.md"
# the GPU-trained models come back, to check here that they tag on a CPU-only install
tar czf "${OUT:-.}/models-cuda.tgz" -C /tmp/itdeid-models recipe-cuda preset-cuda
