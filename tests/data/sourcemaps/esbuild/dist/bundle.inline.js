var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/main.js
var main_exports = {};
__export(main_exports, {
  handleRequest: () => handleRequest
});
module.exports = __toCommonJS(main_exports);

// src/checksum.js
function checksum(text) {
  let hash = 0;
  for (let i = 0; i < text.length; i++) {
    hash = hash * 31 + text.charCodeAt(i) | 0;
  }
  return hash >>> 0;
}

// src/main.js
function describeOrder(order) {
  const items = order.items.map((item) => `${item.sku} x${item.quantity}`);
  return `${order.id}: ${items.join(", ")} (${checksum(items.join())})`;
}
function handleRequest(body) {
  const order = JSON.parse(body);
  return describeOrder(order);
}
// Annotate the CommonJS export names for ESM import in node:
0 && (module.exports = {
  handleRequest
});
//# sourceMappingURL=data:application/json;base64,ewogICJ2ZXJzaW9uIjogMywKICAic291cmNlcyI6IFsiLi4vc3JjL21haW4uanMiLCAiLi4vc3JjL2NoZWNrc3VtLmpzIl0sCiAgInNvdXJjZXNDb250ZW50IjogWyIvLyBGaXh0dXJlIGZvciB0aGUgc291cmNlLW1hcCB0ZXN0czogYnVuZGxlZCAoYW5kIG1pbmlmaWVkKSBieSBlc2J1aWxkLlxuaW1wb3J0IHsgY2hlY2tzdW0gfSBmcm9tICcuL2NoZWNrc3VtLmpzJztcblxuZnVuY3Rpb24gZGVzY3JpYmVPcmRlcihvcmRlcikge1xuICBjb25zdCBpdGVtcyA9IG9yZGVyLml0ZW1zLm1hcCgoaXRlbSkgPT4gYCR7aXRlbS5za3V9IHgke2l0ZW0ucXVhbnRpdHl9YCk7XG4gIHJldHVybiBgJHtvcmRlci5pZH06ICR7aXRlbXMuam9pbignLCAnKX0gKCR7Y2hlY2tzdW0oaXRlbXMuam9pbigpKX0pYDtcbn1cblxuZXhwb3J0IGZ1bmN0aW9uIGhhbmRsZVJlcXVlc3QoYm9keSkge1xuICBjb25zdCBvcmRlciA9IEpTT04ucGFyc2UoYm9keSk7XG4gIHJldHVybiBkZXNjcmliZU9yZGVyKG9yZGVyKTtcbn1cbiIsICJleHBvcnQgZnVuY3Rpb24gY2hlY2tzdW0odGV4dCkge1xuICBsZXQgaGFzaCA9IDA7XG4gIGZvciAobGV0IGkgPSAwOyBpIDwgdGV4dC5sZW5ndGg7IGkrKykge1xuICAgIGhhc2ggPSAoaGFzaCAqIDMxICsgdGV4dC5jaGFyQ29kZUF0KGkpKSB8IDA7XG4gIH1cbiAgcmV0dXJuIGhhc2ggPj4+IDA7XG59XG4iXSwKICAibWFwcGluZ3MiOiAiOzs7Ozs7Ozs7Ozs7Ozs7Ozs7O0FBQUE7QUFBQTtBQUFBO0FBQUE7QUFBQTs7O0FDQU8sU0FBUyxTQUFTLE1BQU07QUFDN0IsTUFBSSxPQUFPO0FBQ1gsV0FBUyxJQUFJLEdBQUcsSUFBSSxLQUFLLFFBQVEsS0FBSztBQUNwQyxXQUFRLE9BQU8sS0FBSyxLQUFLLFdBQVcsQ0FBQyxJQUFLO0FBQUEsRUFDNUM7QUFDQSxTQUFPLFNBQVM7QUFDbEI7OztBREhBLFNBQVMsY0FBYyxPQUFPO0FBQzVCLFFBQU0sUUFBUSxNQUFNLE1BQU0sSUFBSSxDQUFDLFNBQVMsR0FBRyxLQUFLLEdBQUcsS0FBSyxLQUFLLFFBQVEsRUFBRTtBQUN2RSxTQUFPLEdBQUcsTUFBTSxFQUFFLEtBQUssTUFBTSxLQUFLLElBQUksQ0FBQyxLQUFLLFNBQVMsTUFBTSxLQUFLLENBQUMsQ0FBQztBQUNwRTtBQUVPLFNBQVMsY0FBYyxNQUFNO0FBQ2xDLFFBQU0sUUFBUSxLQUFLLE1BQU0sSUFBSTtBQUM3QixTQUFPLGNBQWMsS0FBSztBQUM1QjsiLAogICJuYW1lcyI6IFtdCn0K
