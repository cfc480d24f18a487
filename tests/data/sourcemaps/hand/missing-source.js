function lost(){return 1}
lost();
//# sourceMappingURL=missing-source.js.map
