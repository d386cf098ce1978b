// placeholder translation unit until the component lands
