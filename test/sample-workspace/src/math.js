// Small arithmetic helpers used by greet.js.
function add(a, b) {
  return a + b;
}

function sum(values) {
  return values.reduce(add, 0);
}

module.exports = { add, sum };
