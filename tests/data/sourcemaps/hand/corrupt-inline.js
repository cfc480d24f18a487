function bad(){return 1}
//# sourceMappingURL=data:application/json;base64,eyJ2ZXJza@@@
