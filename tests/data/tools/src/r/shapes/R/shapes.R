# A small program with partial coverage for the report tests.
classify <- function(a, b, c) {
  if (a <= 0 || b <= 0 || c <= 0) {
    return("invalid")
  }
  if (a == b && b == c) {
    return("equilateral")
  }
  if (a == b || b == c || a == c) {
    return("isosceles")
  }
  "scalene"
}

area <- function(w, h) {
  if (w < 0) {
    w <- -w
  }
  w * h
}
