#!/bin/sh
# Prints the Python to build .venv with: Django 6 needs Python >= 3.12, so prefer one of those
# (on PATH or from pyenv) and fall back to python3, with which pip resolves Django 5.2 LTS.
# Each candidate is run, not only looked up: a pyenv shim exists even where it cannot run.
for candidate in python3.12 python3.13 \
    "$HOME"/.pyenv/versions/3.12*/bin/python3 "$HOME"/.pyenv/versions/3.13*/bin/python3; do
    if "$candidate" -c 'import sys, venv; assert sys.version_info >= (3, 12)' >/dev/null 2>&1; then
        "$candidate" -c 'import sys; print(sys.executable)'
        exit 0
    fi
done
command -v python3
