function bad(){return 1}
//# sourceMappingURL=corrupt-mappings.js.map
