const shapes = require("./shapes");
console.log(shapes.classify(2, 2, 2), shapes.classify(3, 4, 5), shapes.sum([1, 2]));
