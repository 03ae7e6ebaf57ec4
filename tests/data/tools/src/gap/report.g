# Run by generate.sh: the profiling package's reports of the program's files (not GAP's library).
LoadPackage("profiling");
profile := ReadLineByLineProfile(Concatenation(here, "/profile.coverage"));;
profile.line_info := Filtered(profile.line_info, x -> StartsWith(x[1], here));;
OutputJsonCoverage(profile, Concatenation(here, "/gap-coverage.json"));
OutputLcovCoverage(profile, Concatenation(here, "/gap.lcov"));
OutputCoverallsJsonCoverage(profile, Concatenation(here, "/coveralls.json"), Concatenation(here, "/"), rec(service_name := "local"));
