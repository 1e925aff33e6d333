"""The adversarial suite: input an attacker or an unlucky user would give.

Issue 13 lists what was found by trying to break the linter; every case there
(and standard input as in issue 11 item 1) is a test here. The promise these
tests hold the program to:

- nothing lost: a file is left wholly old or wholly new, never overwritten
  when it changed after it was read, never written through to another file;
  owner, group and mode are kept; no temporary file survives a signal;
- nothing hangs: FIFOs, devices, sockets, symlink loops, endless files, deep
  nesting, dead workers; every subprocess here has a timeout, and a run that
  hits it fails the test (its whole process group is killed);
- nothing injected: file names and messages are escaped in every output format;
- one error path: each failure is ONE line naming the input, exit code 2,
  never a traceback, and the other files are still done.

Layout (one module per part of issue 13):

- `helpers.py`          running the CLI as a real subprocess, with timeouts
- `test_data_loss.py`   item 1 (concurrent edits, owner/group, signals while writing)
- `test_notebooks.py`   items 2, 10 and the notebook parts of 11 (markers, CRLF, nbformat 3)
- `test_special_files.py` item 4 and the file parts of 8 and 11 (FIFOs, devices,
                        sockets, size limit, symlink loops, nested git repositories)
- `test_crashes.py`     items 3 and 6 (deep nesting, dead workers, orphaned workers)
- `test_injection.py`   item 7 (github, SARIF, JSON with hostile names)
- `test_settings.py`    items 8 and 9 (malformed and misspelled pyproject.toml)
- `test_errors.py`      the rest of items 8 and 11 (standard input, undecodable files, summary)
- `test_stdin.py`       issue 11 item 1 (standard input as ruff reads it)
- `test_tools.py`       item 5 and `tune` in item 8 (timeouts, bounded output)
- `test_shim_values.py` item 12 (values TensorFlow would refuse)

No case is marked xfail: each one passes, and a regression fails it. Nothing
here imports TensorFlow. Run: `python -m pytest tests/adversarial` (99 tests; about
35 s of CPU; 22 s of wall time with `-n 2` on this 2-core machine).
"""
