library(shapes)
stopifnot(classify(2, 2, 2) == "equilateral")
stopifnot(classify(3, 4, 5) == "scalene")
