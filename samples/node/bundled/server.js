var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// src/main.js
var import_node_http = __toESM(require("node:http"));

// src/report.js
function scoreInventory(rows2, categories2) {
  let total = 0;
  for (const row of rows2) {
    for (const category of categories2) {
      let h = row.id;
      for (let k = 0; k < category.length; k++) h = h * 31 + category.charCodeAt(k) | 0;
      total += h & 7;
    }
  }
  return total;
}

// src/main.js
var rows = [];
for (let i = 0; i < 2e3; i++) rows.push({ id: i, name: `item-${i}` });
var categories = [];
for (let i = 0; i < 200; i++) categories.push(`category-${i}`);
var server = import_node_http.default.createServer((req, res) => {
  const score = scoreInventory(rows, categories);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ score }));
});
server.listen(Number(process.env.PORT) || 0, "127.0.0.1", () => {
  console.log(`bundled listening on 127.0.0.1:${server.address().port}`);
});
//# sourceMappingURL=data:application/json;base64,ewogICJ2ZXJzaW9uIjogMywKICAic291cmNlcyI6IFsic3JjL21haW4uanMiLCAic3JjL3JlcG9ydC5qcyJdLAogICJzb3VyY2VzQ29udGVudCI6IFsiLy8gYmxvY2tlZC1sb29wLCBidW5kbGVkOiBlc2J1aWxkIHR1cm5zIHNyYy8gaW50byAuLi9zZXJ2ZXIuanMgd2l0aCBhbiBpbmxpbmVcbi8vIHNvdXJjZSBtYXAgKHNlZSAuLi9SRUFETUUubWQpOyB0aGUgdGltZSBnb2VzIHRvIHNjb3JlSW52ZW50b3J5IGluIHJlcG9ydC5qcy5cbmltcG9ydCBodHRwIGZyb20gJ25vZGU6aHR0cCc7XG5pbXBvcnQgeyBzY29yZUludmVudG9yeSB9IGZyb20gJy4vcmVwb3J0LmpzJztcblxuY29uc3Qgcm93cyA9IFtdO1xuZm9yIChsZXQgaSA9IDA7IGkgPCAyMDAwOyBpKyspIHJvd3MucHVzaCh7IGlkOiBpLCBuYW1lOiBgaXRlbS0ke2l9YCB9KTtcbmNvbnN0IGNhdGVnb3JpZXMgPSBbXTtcbmZvciAobGV0IGkgPSAwOyBpIDwgMjAwOyBpKyspIGNhdGVnb3JpZXMucHVzaChgY2F0ZWdvcnktJHtpfWApO1xuXG5jb25zdCBzZXJ2ZXIgPSBodHRwLmNyZWF0ZVNlcnZlcigocmVxLCByZXMpID0+IHtcbiAgY29uc3Qgc2NvcmUgPSBzY29yZUludmVudG9yeShyb3dzLCBjYXRlZ29yaWVzKTtcbiAgcmVzLndyaXRlSGVhZCgyMDAsIHsgJ2NvbnRlbnQtdHlwZSc6ICdhcHBsaWNhdGlvbi9qc29uJyB9KTtcbiAgcmVzLmVuZChKU09OLnN0cmluZ2lmeSh7IHNjb3JlIH0pKTtcbn0pO1xuXG5zZXJ2ZXIubGlzdGVuKE51bWJlcihwcm9jZXNzLmVudi5QT1JUKSB8fCAwLCAnMTI3LjAuMC4xJywgKCkgPT4ge1xuICBjb25zb2xlLmxvZyhgYnVuZGxlZCBsaXN0ZW5pbmcgb24gMTI3LjAuMC4xOiR7c2VydmVyLmFkZHJlc3MoKS5wb3J0fWApO1xufSk7XG4iLCAiLy8gU2NvcmVzIGV2ZXJ5IHJvdyBvZiB0aGUgaW52ZW50b3J5IGFnYWluc3QgZXZlcnkgY2F0ZWdvcnkgb24gZWFjaFxuLy8gcmVxdWVzdDogYSBxdWFkcmF0aWMgbG9vcCBvbiB0aGUgbWFpbiB0aHJlYWQsIGZvciBhIHJlc3VsdCB0aGF0IG5ldmVyXG4vLyBjaGFuZ2VzIGJldHdlZW4gcmVxdWVzdHMuXG5leHBvcnQgZnVuY3Rpb24gc2NvcmVJbnZlbnRvcnkocm93cywgY2F0ZWdvcmllcykge1xuICBsZXQgdG90YWwgPSAwO1xuICBmb3IgKGNvbnN0IHJvdyBvZiByb3dzKSB7XG4gICAgZm9yIChjb25zdCBjYXRlZ29yeSBvZiBjYXRlZ29yaWVzKSB7XG4gICAgICBsZXQgaCA9IHJvdy5pZDtcbiAgICAgIGZvciAobGV0IGsgPSAwOyBrIDwgY2F0ZWdvcnkubGVuZ3RoOyBrKyspIGggPSAoaCAqIDMxICsgY2F0ZWdvcnkuY2hhckNvZGVBdChrKSkgfCAwO1xuICAgICAgdG90YWwgKz0gaCAmIDc7XG4gICAgfVxuICB9XG4gIHJldHVybiB0b3RhbDtcbn1cbiJdLAogICJtYXBwaW5ncyI6ICI7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7OztBQUVBLHVCQUFpQjs7O0FDQ1YsU0FBUyxlQUFlQSxPQUFNQyxhQUFZO0FBQy9DLE1BQUksUUFBUTtBQUNaLGFBQVcsT0FBT0QsT0FBTTtBQUN0QixlQUFXLFlBQVlDLGFBQVk7QUFDakMsVUFBSSxJQUFJLElBQUk7QUFDWixlQUFTLElBQUksR0FBRyxJQUFJLFNBQVMsUUFBUSxJQUFLLEtBQUssSUFBSSxLQUFLLFNBQVMsV0FBVyxDQUFDLElBQUs7QUFDbEYsZUFBUyxJQUFJO0FBQUEsSUFDZjtBQUFBLEVBQ0Y7QUFDQSxTQUFPO0FBQ1Q7OztBRFJBLElBQU0sT0FBTyxDQUFDO0FBQ2QsU0FBUyxJQUFJLEdBQUcsSUFBSSxLQUFNLElBQUssTUFBSyxLQUFLLEVBQUUsSUFBSSxHQUFHLE1BQU0sUUFBUSxDQUFDLEdBQUcsQ0FBQztBQUNyRSxJQUFNLGFBQWEsQ0FBQztBQUNwQixTQUFTLElBQUksR0FBRyxJQUFJLEtBQUssSUFBSyxZQUFXLEtBQUssWUFBWSxDQUFDLEVBQUU7QUFFN0QsSUFBTSxTQUFTLGlCQUFBQyxRQUFLLGFBQWEsQ0FBQyxLQUFLLFFBQVE7QUFDN0MsUUFBTSxRQUFRLGVBQWUsTUFBTSxVQUFVO0FBQzdDLE1BQUksVUFBVSxLQUFLLEVBQUUsZ0JBQWdCLG1CQUFtQixDQUFDO0FBQ3pELE1BQUksSUFBSSxLQUFLLFVBQVUsRUFBRSxNQUFNLENBQUMsQ0FBQztBQUNuQyxDQUFDO0FBRUQsT0FBTyxPQUFPLE9BQU8sUUFBUSxJQUFJLElBQUksS0FBSyxHQUFHLGFBQWEsTUFBTTtBQUM5RCxVQUFRLElBQUksa0NBQWtDLE9BQU8sUUFBUSxFQUFFLElBQUksRUFBRTtBQUN2RSxDQUFDOyIsCiAgIm5hbWVzIjogWyJyb3dzIiwgImNhdGVnb3JpZXMiLCAiaHR0cCJdCn0K
