var a=1;function first(){return a}function second(){return 2}
second();
//# sourceMappingURL=index.js.map
