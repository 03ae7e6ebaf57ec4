# Runs covr on the shapes package; writes covr's Codecov JSON and covr's own per-file summary.
args <- commandArgs(trailingOnly = TRUE)
cov <- covr::package_coverage(file.path(getwd(), "shapes"), type = "tests", quiet = TRUE)
writeLines(covr:::to_codecov(cov), file.path(args[1], "covr.json"))
# covr prints its summary as messages (standard error).
writeLines(capture.output(print(cov, group = "filename"), type = "message"), file.path(args[1], "covr-summary.txt"))
