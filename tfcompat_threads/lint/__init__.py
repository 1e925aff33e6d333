"""The linter over files: command line, runner, files, notebooks, settings,
output formats. The rules and fixes themselves are in `tfcompat_threads.codemod`."""
