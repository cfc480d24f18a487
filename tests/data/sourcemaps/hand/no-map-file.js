function gone(){return 1}
//# sourceMappingURL=gone.js.map
