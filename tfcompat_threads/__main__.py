from .cli import main

main(prog_name="tfcompat-threads")
