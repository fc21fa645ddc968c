# The course's everyday commands. Everything runs in .venv, made on first use.
PYTHON ?= python3
# the virtual environment the commands use: make test-fast VENV=/path/to/another/venv
VENV   ?= .venv
PY     := $(VENV)/bin/python
LAB    ?= notebooks/08_whatif_lab.ipynb
# where `make lecture` writes the lecture copy it serves (remade on each run)
LECTURE ?= artifacts/lecture
# extra Voila options, e.g. make lecture LECTURE_ARGS="--port=8867 --no-browser"
LECTURE_ARGS ?=
# the student's working copy that `make course` opens (outputs cleared; never overwritten)
STUDENT ?= student
# JupyterLab refuses to run as root without --allow-root (containers, cloud VMs, classroom images)
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
# extra JupyterLab options, e.g. make course COURSE_ARGS="--port=8899 --no-browser"
COURSE_ARGS ?=

.PHONY: course test test-fast notebooks lecture bench bench-quick setup setup-test browser clean

$(VENV)/.course: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps -e .
	touch $@

$(VENV)/.test: $(VENV)/.course requirements-test.txt
	$(PY) -m pip install -q -r requirements-test.txt
	touch $@

setup: $(VENV)/.course
setup-test: $(VENV)/.test

## Open the course in JupyterLab (as root too); on a headless server, open the URL it prints.
## It opens your working copy in $(STUDENT)/: the notebooks with outputs cleared, made once and
## never overwritten (notebooks/ keeps the executed copies, for reading and for the tests).
course: setup
	@$(PY) -m llmcourse.student_copy notebooks $(STUDENT)
	@echo "Starting JupyterLab. If no browser opens (a headless server), open the"
	@echo "http://127.0.0.1:...?token=... URL printed below in your browser. Stop with Ctrl+C."
	$(VENV)/bin/jupyter lab $(STUDENT)/ $(ALLOW_ROOT) $(COURSE_ARGS)

## The whole test suite: engine, exactness against transformers, lessons, notebooks (nbval), browser
## (as root it installs Debian's Chromium first, see `browser`).
test: setup-test browser
	$(PY) -m pytest

## The engine alone (configs, counts, caches, serving, training, the Hub): no transformers
## builds, no notebooks, widgets or browser, a smaller fuzz sample. For a change to the engine.
## Needs no root, apt or Chromium. Python keeps its bytecode (__pycache__, git-ignored) even
## where PYTHONDONTWRITEBYTECODE is set: compiling every module and test again costs a sixth.
test-fast: setup-test
	PYTHONDONTWRITEBYTECODE= FUZZ_EXAMPLES=300 FUZZ_LISTING_EXAMPLES=40 FUZZ_NULL_EVERY=8 \
	  $(PY) -m pytest -o addopts="-ra" -p no:nbval \
	  tests --ignore=tests/browser -m "not slow and not course and not lessons"

## Execute every notebook on a fresh kernel and store it without volatile metadata
## (or NB=notebooks/05_ffn_sizing.ipynb for one).
NB ?= notebooks/*.ipynb
notebooks: setup-test
	$(PY) tools/notebooks.py $(NB)

## The what-if lab (or LAB=notebooks/<lesson>.ipynb, or LAB=notebooks/ for a page listing every
## lesson) as a code-free app for a projector. Voila serves a lecture copy, made in $(LECTURE)/ by
## llmcourse.student_copy: the notebook without what is the student's (the how-to-use cell, exercise
## prompts, answer cells, worked solutions, homework), outputs cleared.
lecture: setup
	@target=$$($(PY) -m llmcourse.student_copy --lecture $(LAB) $(LECTURE)) && \
	  echo "Serving $$target: $(LAB) without the student's cells. Stop with Ctrl+C." && \
	  exec $(VENV)/bin/voila "$$target" --theme=light $(LECTURE_ARGS)

## Timings: import, counts, transformers meta build, widget redraw, whole course.
bench: setup-test browser
	$(PY) benchmarks/run.py

bench-quick: setup-test browser
	$(PY) benchmarks/run.py --quick

## Debian's Chromium for the browser tests (installed when run as root; skipped with a note otherwise).
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  (apt-get update -q && apt-get install -y -q chromium) >/dev/null; \
	else echo "note: /usr/bin/chromium is missing; browser tests will be skipped (sudo apt-get install chromium)"; fi

clean:
	rm -rf $(VENV) artifacts .pytest_cache .hypothesis
