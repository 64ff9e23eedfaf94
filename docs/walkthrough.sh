#!/bin/sh
# Regenerates the README walkthrough's outputs and pictures (docs/img/): a run with its report,
# a comparison of two rule variants, a sweep and a suggestion, all on Situation 4, heuristic
# players.  Under 4 minutes on 2 cores once the engine is compiled.  Usage: sh docs/walkthrough.sh
set -e
B=.venv/bin/balance
OUT=out/walkthrough
mkdir -p "$OUT" docs/img
$B run pb-04 --games 400 --seed 1 --out "$OUT/run"
$B compare pb-04 --games 200 --seed 1 --variant eight-turns:situation.turns=8 \
    --variant 'strong-88:units.88mm-at.attack=30' --out "$OUT/compare"
$B sweep pb-04 --param situation.turns --values 6,8,10,12 --games 150 --seed 1 --out "$OUT/sweep"
$B suggest pb-04 --games 100 --seed 1 --levers turns,threshold --out "$OUT/suggest"
cp "$OUT/run/charts/victory.png" docs/img/run-victory.png
cp "$OUT/run/charts/decided.png" docs/img/run-decided.png
cp "$OUT/run/charts/attrition.png" docs/img/run-attrition.png
cp "$OUT/run/charts/measures.png" docs/img/run-measures.png
# The report shows the loss map one board at a time, a page wide; the README shows board 3
# (inverted in this layout), where most units are lost, in 256 colours.
.venv/bin/python -c "
from PIL import Image
im = Image.open('$OUT/run/charts/loss_map_board-3i.png').convert('RGB')
im = im.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
im.save('docs/img/run-loss-map.png', optimize=True)"
cp "$OUT/compare/compare.png" docs/img/compare.png
cp "$OUT/sweep/sweep.png" docs/img/sweep.png
cp "$OUT/suggest/suggest.png" docs/img/suggest.png
