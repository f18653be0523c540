// The `cab` executable: wiring only (see STYLE.md §1).
CommandLineInterface.run(Array(CommandLine.arguments.dropFirst()))
