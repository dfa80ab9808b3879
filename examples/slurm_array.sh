#!/bin/bash
# One Spades run spread over a SLURM job array: every array task plays its share of the chunks
# (--shard I/N) into the same run directory on a shared filesystem. Tasks need no communication;
# the union of the shares is exactly the unsharded run (same seed, same chunk size, same bytes).
#
#   sbatch examples/slurm_array.sh                      # submit all tasks
#   sbatch --array=3 examples/slurm_array.sh            # redo one task (it skips finished chunks)
#   .venv/bin/spades-sim status "$SHARED"               # progress, missing or corrupt chunks
#
# The array must be 0-based (--array=0-N-1): the shard is SLURM_ARRAY_TASK_ID + 1 of
# SLURM_ARRAY_TASK_COUNT. A task that is killed, pre-empted or times out loses only the chunks
# it had in flight: resubmit the same script (or just that task) and it resumes. Every task must
# run the same command (same seed, rules, strategies, --hands and --chunk-size); a task with a
# different one is refused with exit status 2 and writes nothing.
#
#SBATCH --job-name=spades-run
#SBATCH --array=0-15
#SBATCH --cpus-per-task=4
#SBATCH --mem-per-cpu=1G
#SBATCH --time=01:00:00
#SBATCH --output=logs/%x-%A_%a.out
# Uncomment and adapt to your site:
##SBATCH --account=myproject
##SBATCH --partition=cpu

set -euo pipefail

# Where the checkout and its virtual environment live (make setup), and the run directory: an
# absolute path on a filesystem that every node sees.
REPO=${REPO:-$HOME/spades_sim}
SHARED=${SHARED:-/scratch/$USER/spades/classic-vs-tournament-seed1}

# Each task works with --jobs processes of its own; keep numba and BLAS to one thread each.
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

# Two configurations on the same deals (common random numbers) plus the seat-swapped duplicate
# of every deal: 200 M hands, 2,000 chunks of 100,000 hands, about 125 chunks per task.
"$REPO/.venv/bin/spades-sim" simulate \
    --rules classic --rules tournament --strategy heuristic \
    --hands 200000000 --chunk-size 100000 --seed 1 --duplicate \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" \
    --out "$SHARED" \
    --shard "$((SLURM_ARRAY_TASK_ID + 1))/$SLURM_ARRAY_TASK_COUNT" \
    --quiet
