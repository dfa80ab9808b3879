#!/bin/bash
# An experiment as a SLURM job array: every array task plays its share (--shard I/N) of the
# chunks of every run of the experiment (its hands run, its games run, its tournament's matches)
# into one results folder on a shared filesystem; a job that depends on the array builds the
# report once the tasks have ended. Tasks need no communication; the union of the shares is
# exactly the experiment run whole (same seed, same chunk size, same bytes, same report).
#
#   bash examples/slurm_array.sh experiments/variants.toml     # submits the array and the report
#   TASKS=32 CPUS=8 bash examples/slurm_array.sh experiments/nil.toml
#   spades-sim status "$SHARED/variants"                       # one line per run: chunks done
#
# Run it with bash, not sbatch: it creates the folders first (SLURM does not create the log
# folder of --output, and a task whose log folder is missing fails without a word), submits
# itself as the array, then the report job (--dependency=afterany: it runs when every task has
# ended, whether or not all succeeded). Inside a task it plays that task's shard.
#
# A task that is killed, pre-empted or times out loses only the chunks it had in flight. The
# report job then refuses with one line naming the runs and the shards not finished (in its log,
# $LOGS/spades-NAME-report-JOBID.out); submit the script again: finished chunks are skipped
# (tasks whose share is done end at once) and a new report job follows. To grow the experiment,
# edit its hands or games and submit again: only the new chunks are played.
#
# A single run (no experiment file) is sharded the same way:
#   spades-sim simulate --rules classic --rules tournament --hands 200000000 --seed 1 \
#       --out "$SHARED/run1" --shard "$((SLURM_ARRAY_TASK_ID + 1))/$SLURM_ARRAY_TASK_COUNT"
#
# Uncomment and adapt to your site (the options given on the sbatch command lines below win):
##SBATCH --account=myproject
##SBATCH --partition=cpu

set -euo pipefail

# Where the checkout and its virtual environment live (make setup); the experiment file; the
# shared folder (an absolute path on a filesystem that every node sees) with the results, the
# reports and the logs; the number of tasks and the cores of each.
REPO=${REPO:-$HOME/spades_sim}
EXPERIMENT=${EXPERIMENT:-${1:-$REPO/experiments/variants.toml}}
SHARED=${SHARED:-/scratch/$USER/spades}
TASKS=${TASKS:-16}
CPUS=${CPUS:-4}
NAME=$(basename "$EXPERIMENT" .toml)
OUT=${OUT:-$SHARED/$NAME}
REPORTS=${REPORTS:-$SHARED/reports}
LOGS=${LOGS:-$SHARED/logs}
SPADES="$REPO/.venv/bin/spades-sim"

if [[ -z "${SLURM_ARRAY_TASK_ID:-}" ]]; then
    # Submitting (on the login node).
    EXPERIMENT=$(realpath "$EXPERIMENT")  # the tasks may start in another directory
    mkdir -p "$OUT" "$REPORTS" "$LOGS"
    export REPO EXPERIMENT SHARED TASKS CPUS OUT REPORTS LOGS
    array=$(sbatch --parsable --export=ALL --job-name="spades-$NAME" \
        --array="0-$((TASKS - 1))" --cpus-per-task="$CPUS" --mem-per-cpu=1G \
        --time=01:00:00 --output="$LOGS/%x-%A_%a.out" "$0")
    array=${array%%;*}  # "JOBID;CLUSTER" on a multi-cluster site
    report=$(sbatch --parsable --export=ALL --job-name="spades-$NAME-report" \
        --dependency="afterany:$array" --cpus-per-task=1 --mem=4G --time=00:30:00 \
        --output="$LOGS/%x-%j.out" \
        --wrap="\"$SPADES\" report \"$OUT\" --reports \"$REPORTS\"")
    echo "array job $array ($TASKS tasks) plays $EXPERIMENT into $OUT"
    echo "report job ${report%%;*} builds $REPORTS/$NAME/index.html when they have ended"
    echo "logs in $LOGS; progress: $SPADES status $OUT"
    exit 0
fi

# One task of the array: its shard of every run. Each task works with --jobs processes of its
# own; keep numba and BLAS to one thread each.
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p "$OUT"
"$SPADES" run "$EXPERIMENT" --out "$OUT" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "$((SLURM_ARRAY_TASK_ID + 1))/${SLURM_ARRAY_TASK_COUNT:-$TASKS}" \
    --quiet
