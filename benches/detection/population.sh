#!/usr/bin/env bash
# A synthetic Xiangqi population for measuring fair-play detection (docs/fairplay.md,
# "Detection"): honest players are Fairy-Stockfish at a limited strength
# (UCI_LimitStrength, UCI_Elo), assisted players the same engine that plays
# full-strength Fairy-Stockfish's first choice on a share f of its moves.
#
#   benches/detection/population.sh FAIRY_STOCKFISH OUT_DIR [JOBS]
#
# writes OUT_DIR/{calibration,honest,f0.1,f0.25,f0.5,f1}/NNNN.pgn, one pairing a file:
# ROUNDS (1) two-game matches of one opening with both colours. Each group has players
# at four levels (UCI_Elo 1000, 1400, 1800, 2200, written as their rating); each player
# meets five others of its group: 20 games a player a round. Honest players play
# honest players, assisted players assisted players of the same share. A pairing's
# file that holds fewer games than its rounds call for is completed: the script
# resumes where it stopped.
set -euo pipefail
fs=${1:?Fairy-Stockfish binary}
out=${2:?output directory}
jobs=${3:-$(nproc)}
chuhe=${CHUHE:-target/release/chuhe}
rounds=${ROUNDS:-1}
levels=(1000 1400 1800 2200)
mkdir -p "$out"

# group players-per-level share
schedule() {
  local group=$1 n=$2 share=$3 level i k j
  for level in "${levels[@]}"; do
    for ((i = 0; i < n; i++)); do
      for ((k = 1; k <= 5; k++)); do
        j=$(((i + k) % n))
        echo "$group $level $i $j $share"
      done
    done
  done
}

play() {
  local group=$1 level=$2 i=$3 j=$4 share=$5 number=$6
  local prefix=$group
  [[ $group == calibration ]] && prefix=c
  [[ $group == honest ]] && prefix=h
  local a b
  a=$(printf '%s-%s-%02d' "$prefix" "$level" "$i")
  b=$(printf '%s-%s-%02d' "$prefix" "$level" "$j")
  local strength=(--option-a UCI_LimitStrength=true --option-a "UCI_Elo=$level"
    --option-b UCI_LimitStrength=true --option-b "UCI_Elo=$level")
  local assist=()
  if [[ $share != 0 ]]; then
    assist=(--assist-a "$fs" --assist-share-a "$share" --assist-b "$fs" --assist-share-b "$share"
      --assist-movetime 50)
  fi
  local file
  file=$(printf '%s/%s/%04d.pgn' "$out" "$group" "$number")
  local tries=0
  while (($(games "$file") < 2 * rounds && tries++ < rounds + 2)); do
    "$chuhe" match --engine-a "$fs" --engine-b "$fs" --ranks-a 1 --ranks-b 1 "${strength[@]}" "${assist[@]}" \
      --movetime 20 --games 2 --random-openings 4 --seed "$number" --max-plies 240 \
      --name-a "$a" --name-b "$b" --elo-a "$level" --elo-b "$level" --pgn "$file" > /dev/null || true
  done
}

games() { if [[ -f $1 ]]; then grep -c '^\[Result' "$1" || true; else echo 0; fi; }
export -f play games
export fs out chuhe rounds

{
  schedule calibration 6 0
  schedule honest 25 0
  for share in 0.1 0.25 0.5 1; do schedule "f$share" 6 "$share"; done
} | awk '{ n[$1]++; print $0, n[$1] }' > "$out/schedule"
for group in $(cut -d' ' -f1 "$out/schedule" | sort -u); do mkdir -p "$out/$group"; done
while read -r group level i j share number; do
  file=$(printf '%s/%s/%04d.pgn' "$out" "$group" "$number")
  (($(games "$file") >= 2 * rounds)) && continue
  echo "$group $level $i $j $share $number"
done < "$out/schedule" | xargs -P "$jobs" -L 1 bash -c 'play "$@"' _
