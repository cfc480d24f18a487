function plain(){return 1}
