// The same calls as main.js, run by `node --test` for its own coverage report.
const test = require("node:test");
const assert = require("node:assert");
const shapes = require("./shapes");

test("classify and sum", () => {
  assert.strictEqual(shapes.classify(2, 2, 2), "equilateral");
  assert.strictEqual(shapes.classify(3, 4, 5), "scalene");
  assert.strictEqual(shapes.sum([1, 2]), 3);
});
