#!/bin/sh
# One shard of an emu sweep per task of a Slurm job array (docs/sweeps.md):
#
#   job=$(sbatch --parsable scripts/slurm-sweep.sh)
#   sbatch --dependency=afterany:$job --wrap "emu sweep merge $OUT/shard-* --out $OUT/all"
#
# SWEEP holds the sweep's arguments, the same for every task (default: the
# paper's Fig. 4a, base seed 42); OUT the directory on a file system every
# node shares. Each task runs as many runs at once as its node takes
# (--jobs auto). Resubmitting one task (sbatch --array=3 …) resumes its
# shard.
#SBATCH --job-name=emu-sweep
#SBATCH --array=1-8
#SBATCH --exclusive
#SBATCH --time=01:00:00
#SBATCH --output=emu-sweep-%A_%a.out
set -eu
: "${SWEEP:=--preset batch --seed 42}"
: "${OUT:=/shared/sweeps/batch}"
# shellcheck disable=SC2086 # SWEEP is a list of arguments
exec emu sweep $SWEEP --jobs auto \
	--shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}" \
	--out "$OUT/shard-${SLURM_ARRAY_TASK_ID}"
