// config: examples/everything.json
// value: {"total":330,"largest":90}
// Ten calls at once, and only the answer comes back: the model never reads the ten results.
const pairs = Array.from({ length: 10 }, (_, i) => ({ a: i, b: i * i }));
const results = await Promise.all(pairs.map((pair) => tools["get-sum"](pair)));
const sums = results.map((result) => Number(/ is (-?\d+(?:\.\d+)?)\.$/.exec(result.content[0].text)[1]));
console.log(`called get-sum ${results.length} times`);
return { total: sums.reduce((a, b) => a + b, 0), largest: Math.max(...sums) };
