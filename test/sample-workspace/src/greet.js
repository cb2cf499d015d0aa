// Prints a greeting for the name given on the command line.
const { sum } = require('./math');

function greet(name) {
  return `Hello, ${name}!`;
}

if (require.main === module) {
  console.log(greet(process.argv[2] ?? 'World'));
  console.log(`1 + 2 + 3 = ${sum([1, 2, 3])}`);
}

module.exports = { greet };
