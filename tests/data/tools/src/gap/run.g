# Run by generate.sh, `here` the folder's absolute path: the program's run under GAP's line coverage.
CoverageLineByLine(Concatenation(here, "/profile.coverage"));
Read(Concatenation(here, "/shapes.g"));
Print(Classify(2, 2, 2), "\n");
Print(Classify(3, 4, 5), "\n");
UncoverageLineByLine();
