// config: examples/servers.json
// When the description lists too many tools to read, a script can search them and read one declaration.
const found = searchTools("read file").slice(0, 3);
console.log(describe(found[0].name));
return found.map((tool) => tool.name);
