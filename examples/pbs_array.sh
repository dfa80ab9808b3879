#!/bin/bash
# An experiment as a PBS Pro (or OpenPBS) job array: every subjob plays its share (--shard I/N)
# of the chunks of every run of the experiment (its hands run, its games run, its tournament's
# matches) into one results folder on a shared filesystem; a job that depends on the array
# builds the report once the subjobs have ended. The union of the shares is exactly the
# experiment run whole (same seed, same chunk size, same bytes, same report).
#
#   bash examples/pbs_array.sh experiments/variants.toml     # submits the array and the report
#   TASKS=32 CPUS=8 bash examples/pbs_array.sh experiments/nil.toml
#   spades-sim status "$SHARED/variants"                     # one line per run: chunks done
#
# Run it with bash, not qsub: it creates the folders first (the results, the reports and the
# log folder: PBS cannot deliver a log into a folder that does not exist), submits itself as
# the array (qsub -J), then the report job (depend=afterany: it runs when every subjob has
# ended, whether or not all succeeded). Inside a subjob it plays that subjob's shard. PBS gives
# no count of subjobs, so the script passes TASKS along.
#
# A subjob that is killed or runs out of walltime loses only the chunks it had in flight. The
# report job then refuses with one line naming the runs and the shards not finished (in its
# log in $LOGS); submit the script again: finished chunks are skipped and a new report job
# follows. To grow the experiment, edit its hands or games and submit again: only the new
# chunks are played. (Torque's qsub differs: -t 0-15, $PBS_ARRAYID, depend=afteranyarray.)
#
# Adapt to your site (the options given on the qsub command lines below win):
##PBS -A myproject
##PBS -q cpu

set -euo pipefail

# Where the checkout and its virtual environment live (make setup); the experiment file; the
# shared folder (an absolute path on a filesystem that every node sees) with the results, the
# reports and the logs; the number of subjobs and the cores of each.
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

if [[ -z "${PBS_ARRAY_INDEX:-}" ]]; then
    # Submitting (on the login node).
    EXPERIMENT=$(realpath "$EXPERIMENT")  # subjobs start in the home directory
    mkdir -p "$OUT" "$REPORTS" "$LOGS"
    vars="REPO=$REPO,EXPERIMENT=$EXPERIMENT,SHARED=$SHARED,TASKS=$TASKS,CPUS=$CPUS"
    vars+=",OUT=$OUT,REPORTS=$REPORTS,LOGS=$LOGS"
    array=$(qsub -N "spades-$NAME" -J "0-$((TASKS - 1))" \
        -l "select=1:ncpus=$CPUS:mem=$((CPUS))gb" -l walltime=01:00:00 \
        -j oe -o "$LOGS/" -v "$vars" "$0")
    report=$(printf '%s\n' "\"$SPADES\" report \"$OUT\" --reports \"$REPORTS\"" |
        qsub -N "spades-$NAME-report" -W "depend=afterany:$array" \
            -l select=1:ncpus=1:mem=4gb -l walltime=00:30:00 -j oe -o "$LOGS/")
    echo "array job $array ($TASKS subjobs) plays $EXPERIMENT into $OUT"
    echo "report job $report builds $REPORTS/$NAME/index.html when they have ended"
    echo "logs in $LOGS; progress: $SPADES status $OUT"
    exit 0
fi

# One subjob of the array: its shard of every run. Each subjob works with --jobs processes of
# its own; keep numba and BLAS to one thread each.
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p "$OUT"
"$SPADES" run "$EXPERIMENT" --out "$OUT" \
    --jobs "${NCPUS:-1}" \
    --shard "$((PBS_ARRAY_INDEX + 1))/$TASKS" \
    --quiet
