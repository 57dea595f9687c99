#!/bin/sh
# make-tiny-fixture.sh — regenerates the committed forward-pass fixture: tests/fixtures/tiny-gpt2/
# (a random 2-layer GPT-2 in the Hugging Face layout) and tests/fixtures/tiny-gpt2-expected.h5
# (the PyTorch reference's outputs for three sequences, T = 1, 7, 32). Run from anywhere:
#   tests/reference/make-tiny-fixture.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../fixtures"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
rm -rf "$fixtures/tiny-gpt2"
"$py" "$here/gpt2_reference.py" make-model "$fixtures/tiny-gpt2" \
  --layers 2 --heads 2 --embd 16 --vocab 300 --positions 32 --std 0.3 --seed 20240611
"$py" "$here/gpt2_reference.py" expected "$fixtures/tiny-gpt2" "$fixtures/tiny-gpt2-expected.h5" \
  --ids 299 \
  --ids 0,17,256,298,3,3,42 \
  --ids 5,9,14,20,27,35,44,54,65,77,90,104,119,135,152,170,189,209,230,252,275,299,24,50,77,105,134,164,195,227,260,294
