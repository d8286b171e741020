"""Commands: the CLI, and what each command does by driving spec -> plan -> emit."""
