// config: examples/servers.json
// value: {"filed":["groceries.txt","ideas.txt"],"entitiesInMemory":2}  (with groceries.txt and ideas.txt in ~/Documents)
// Reads every text file in ~/Documents and files one memory entity per file, all in one call.
const [root] = (await tools["files__list_allowed_directories"]({})).content[0].text.split("\n").slice(1);
const listing = await tools["files__list_directory"]({ path: root });
const names = listing.content[0].text
  .split("\n")
  .filter((line) => line.startsWith("[FILE] ") && line.endsWith(".txt"))
  .map((line) => line.slice("[FILE] ".length));
const notes = await Promise.all(
  names.map(async (name) => ({ name, text: (await tools["files__read_text_file"]({ path: `${root}/${name}` })).content[0].text })),
);
if (notes.length > 0) {
  await tools["memory__create_entities"]({
    entities: notes.map((note) => ({ name: note.name, entityType: "note", observations: [note.text.trim().slice(0, 200)] })),
  });
}
notify({ filed: notes.length });
const graph = await tools["memory__read_graph"]({});
return { filed: notes.map((note) => note.name), entitiesInMemory: graph.structuredContent.entities.length };
